/**
 * The `image_processing` option of enrich requests (docs/api-enrichment.md "Extra request fields"): images of a result's
 * media fields are transformed before they are hosted (resized within `min_side_px` ..
 * `max_side_px`, padded to a square on `background_color`, re-encoded as `output_format` at
 * `quality`). The pixels are worked by sharp (libvips); this module only maps the options.
 */
import sharp from 'sharp';

/** `image_processing` as the request gives it (src/schemas/enrich.ts validates the shapes). */
export interface ImageProcessingOptions {
  enabled?: boolean;
  /** Pad the image to a square (its longer side), centred, on `background_color`. */
  make_square?: boolean;
  /** CSS colour of padding and of transparency flattened for JPEG; default white. */
  background_color?: string;
  /** Smaller images are scaled up until their shorter side reaches this (px). */
  min_side_px?: number;
  /** Larger images are scaled down until their longer side fits this (px). */
  max_side_px?: number;
  /** `jpeg` | `png` | `webp` | `avif`; default: the input's format when it is one of those, else PNG. */
  output_format?: string;
  /** Encoder quality 1–100 for JPEG, WebP and AVIF (sharp's default when omitted). */
  quality?: number;
  /** Also re-process URLs that already point at this service's hosted media. */
  force_reprocess_hosted?: boolean;
  /** Output fields whose media are processed; default every media field. */
  fields?: string[];
}

/** Output formats sharp writes here → content type. */
const IMAGE_OUTPUT_TYPES: Record<string, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', avif: 'image/avif' };

/** Largest input image decoded (pixels), against decompression bombs. */
const MAX_INPUT_PIXELS = 100_000_000;

/** True when `options` asks for processing and the field's media are in scope. */
export function processesField(options: ImageProcessingOptions | undefined, field: string): boolean {
  return Boolean(options?.enabled) && (!options!.fields?.length || options!.fields.includes(field));
}

/**
 * Transforms one image as `options` say: EXIF orientation applied; scaled (aspect kept) so the
 * longer side is at most `max_side_px`, then, when the shorter side is below `min_side_px`,
 * scaled up to it (never past `max_side_px`); padded to a square with `make_square`;
 * re-encoded. Animated images keep only their first frame.
 * @param contentType the input's content type (decides the default output format)
 * @returns the new bytes and their content type
 * @throws Error when the bytes are not a decodable image or the colour is not one sharp reads
 */
export async function processImage(bytes: Buffer, contentType: string, options: ImageProcessingOptions): Promise<{ bytes: Buffer; contentType: string }> {
  const background = options.background_color ?? '#ffffff';
  let image = sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS }).rotate();
  const meta = await image.metadata();
  let width = meta.autoOrient?.width ?? meta.width ?? 0;
  let height = meta.autoOrient?.height ?? meta.height ?? 0;
  if (!width || !height) throw new Error('not a decodable image');
  let scale = 1;
  if (options.max_side_px && Math.max(width, height) > options.max_side_px) scale = options.max_side_px / Math.max(width, height);
  if (options.min_side_px && Math.min(width, height) * scale < options.min_side_px) {
    scale = options.min_side_px / Math.min(width, height);
    if (options.max_side_px) scale = Math.min(scale, options.max_side_px / Math.max(width, height));
  }
  if (scale !== 1) {
    width = Math.max(1, Math.round(width * scale));
    height = Math.max(1, Math.round(height * scale));
    image = image.resize(width, height, { fit: 'fill' });
  }
  if (options.make_square && width !== height) {
    const side = Math.max(width, height);
    const left = Math.floor((side - width) / 2);
    const top = Math.floor((side - height) / 2);
    image = image.extend({ left, right: side - width - left, top, bottom: side - height - top, background });
  }
  const input = contentType.split(';')[0]!.trim().toLowerCase();
  const format = (options.output_format?.toLowerCase().replace(/^jpg$/, 'jpeg') ??
    Object.keys(IMAGE_OUTPUT_TYPES).find((f) => IMAGE_OUTPUT_TYPES[f] === input) ??
    'png') as keyof typeof IMAGE_OUTPUT_TYPES;
  const quality = options.quality;
  if (format === 'jpeg') image = image.flatten({ background }).jpeg(quality ? { quality } : {});
  else if (format === 'webp') image = image.webp(quality ? { quality } : {});
  else if (format === 'avif') image = image.avif(quality ? { quality } : {});
  else image = image.png();
  return { bytes: await image.toBuffer(), contentType: IMAGE_OUTPUT_TYPES[format]! };
}
