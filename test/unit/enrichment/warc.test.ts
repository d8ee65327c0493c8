/**
 * WARC/WACZ reading (src/enrichment/research/warc): page records with their offsets, read back at
 * those offsets from plain and gzip WARC files; non-page records skipped with their reason; a WACZ
 * verified against its datapackage.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WARCRecord, WARCSerializer } from 'warcio';
import { readWarcEntries, readWarcPageAt, type WarcPage } from '../../../src/enrichment/research/warc/records';
import { extractWacz, WaczError } from '../../../src/enrichment/research/warc/wacz';
import { writeWacz, writeWarc } from '../../fixtures/warc';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warc-unit-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const pages = [
  { url: 'https://shop.example/a', date: '2024-05-06T07:08:09Z', body: '<html><title>A</title><body>a</body></html>' },
  { url: 'https://shop.example/b.pdf', date: '2024-05-06T07:08:10Z', body: '%PDF-1.4 not really', contentType: 'application/pdf' },
  { url: 'https://shop.example/c.png', date: '2024-05-06T07:08:11Z', body: 'PNG', contentType: 'image/png' },
];

async function pagesOf(file: string): Promise<{ found: WarcPage[]; skipped: string[] }> {
  const found: WarcPage[] = [];
  const skipped: string[] = [];
  for await (const e of readWarcEntries(file))
    if ('page' in e) found.push(e.page);
    else skipped.push(e.skipped);
  return { found, skipped };
}

test.each([false, true])('page records are read with their offsets and read again there (gzip %s)', async (gzip) => {
  const file = path.join(dir, `p.warc${gzip ? '.gz' : ''}`);
  await writeWarc(file, pages, { gzip });
  const { found, skipped } = await pagesOf(file);
  expect(skipped).toEqual(['not_a_response', 'unsupported_type']);
  expect(found.map((p) => [p.url, p.captured_at, p.content_type])).toEqual([
    ['https://shop.example/a', '2024-05-06T07:08:09.000Z', 'text/html; charset=utf-8'],
    ['https://shop.example/b.pdf', '2024-05-06T07:08:10.000Z', 'application/pdf'],
  ]);
  for (const p of found) {
    expect(p.record_id).toMatch(/^<urn:uuid:/);
    const again = await readWarcPageAt(file, p.offset, p.length);
    expect(again?.body.toString()).toBe(p.body.toString());
    expect(again?.url).toBe(p.url);
  }
  expect(found[0].body.toString()).toBe(pages[0].body);
});

test('a 404 response and a request record are skipped with their reasons', async () => {
  const file = path.join(dir, 'misc.warc');
  const out: Uint8Array[] = [];
  const notFound = WARCRecord.create(
    {
      url: 'https://shop.example/gone',
      date: '2024-01-01T00:00:00Z',
      type: 'response',
      statusline: 'HTTP/1.1 404 Not Found',
      httpHeaders: { 'Content-Type': 'text/html' },
    },
    [new TextEncoder().encode('gone')],
  );
  const req = WARCRecord.create(
    { url: 'https://shop.example/gone', date: '2024-01-01T00:00:00Z', type: 'request', statusline: 'GET /gone HTTP/1.1', httpHeaders: {} },
    [],
  );
  out.push(await WARCSerializer.serialize(notFound), await WARCSerializer.serialize(req));
  fs.writeFileSync(file, Buffer.concat(out));
  expect((await pagesOf(file)).skipped).toEqual(['http_status_not_2xx', 'not_a_response']);
});

test('a WACZ is verified against datapackage.json and its WARC copied out; a wrong hash is refused', async () => {
  const warc = path.join(dir, 'inner.warc.gz');
  await writeWarc(warc, pages.slice(0, 1), { gzip: true });
  const good = path.join(dir, 'good.wacz');
  await writeWacz(good, warc);
  const [copied] = await extractWacz(good, path.join(dir, 'out'));
  expect(fs.readFileSync(copied)).toEqual(fs.readFileSync(warc));
  const bad = path.join(dir, 'bad.wacz');
  await writeWacz(bad, warc, { corrupt: true });
  await expect(extractWacz(bad, path.join(dir, 'out-bad'))).rejects.toThrow(WaczError);
  await expect(extractWacz(bad, path.join(dir, 'out-bad'))).rejects.toThrow(/SHA-256 differs/);
  await expect(extractWacz(warc, path.join(dir, 'out-none'))).rejects.toThrow(/not a readable ZIP/);
});

test('a file that is not a WARC is refused at its first record', async () => {
  const file = path.join(dir, 'not.warc');
  fs.writeFileSync(file, 'this is not a WARC file\r\n\r\n');
  await expect(pagesOf(file)).rejects.toThrow(/not a WARC record at offset 0/);
});
