import sharp from 'sharp';
import { processesField, processImage } from '../../../src/services/enrichment/rows/image-processing';

const image = (width: number, height: number, alpha = false) =>
  sharp({ create: { width, height, channels: alpha ? 4 : 3, background: alpha ? { r: 0, g: 128, b: 0, alpha: 0 } : '#00ff00' } })
    .png()
    .toBuffer();

describe('image_processing', () => {
  it('scales small images up to min_side_px without passing max_side_px, keeping the aspect', async () => {
    const out = await processImage(await image(40, 20), 'image/png', { enabled: true, min_side_px: 60, max_side_px: 100 });
    const meta = await sharp(out.bytes).metadata();
    expect([meta.width, meta.height, meta.format, out.contentType]).toEqual([100, 50, 'png', 'image/png']);
  });

  it('flattens transparency onto the background for JPEG and honours quality', async () => {
    const transparent = await image(20, 20, true);
    const out = await processImage(transparent, 'image/png', { enabled: true, output_format: 'jpg', background_color: 'white', quality: 90 });
    expect(out.contentType).toBe('image/jpeg');
    const { data } = await sharp(out.bytes).raw().toBuffer({ resolveWithObject: true });
    expect([...data.subarray(0, 3)].every((v) => v > 240)).toBe(true);
  });

  it('keeps a supported input format and rejects bytes that are not an image', async () => {
    const webp = await sharp(await image(10, 10))
      .webp()
      .toBuffer();
    expect((await processImage(webp, 'image/webp', { enabled: true })).contentType).toBe('image/webp');
    await expect(processImage(Buffer.from('not an image'), 'image/png', { enabled: true })).rejects.toThrow();
  });

  it('applies to every media field, or to the listed ones, only when enabled', () => {
    expect(processesField({ enabled: true }, 'images')).toBe(true);
    expect(processesField({ enabled: true, fields: ['hero'] }, 'images')).toBe(false);
    expect(processesField({ enabled: false }, 'images')).toBe(false);
    expect(processesField(undefined, 'images')).toBe(false);
  });
});
