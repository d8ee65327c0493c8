import dns from 'node:dns';
import { guardedLookup, isNonPublicAddress } from '../../../src/enrichment/providers/address-policy';
import { fetchedPageDoc } from '../../../src/enrichment/providers/documents';
import { FetchError, type HttpFetcherOptions } from '../../../src/enrichment/providers/http-fetcher';
import { createLiveFetcher } from '../../../src/services/fetching/live-fetcher';
import { startServer, tinyPdf } from './fixtures';
import { closeTestKnex, testKnex } from '../../helpers/db';

const PAGE = '<html><head><title>Acme Widget</title></head><body><h1>Acme Widget</h1><table><tr><th>Brand</th><td>Acme</td></tr></table></body></html>';
let server: Awaited<ReturnType<typeof startServer>>;
const seen: { userAgents: string[]; active: number; maxActive: number } = { userAgents: [], active: 0, maxActive: 0 };

beforeAll(async () => {
  server = await startServer((req, res) => {
    seen.userAgents.push(String(req.headers['user-agent']));
    const path = req.url ?? '/';
    if (path === '/page') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    if (path === '/hop1') return res.writeHead(301, { location: '/hop2' }).end();
    if (path === '/hop2') return res.writeHead(302, { location: server.url('/page') }).end();
    if (path === '/loop') return res.writeHead(302, { location: '/loop' }).end();
    if (path === '/to-file') return res.writeHead(302, { location: 'file:///etc/passwd' }).end();
    if (path === '/big') return res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body>${'x'.repeat(50_000)}</body></html>`);
    if (path === '/big-chunked') {
      res.writeHead(200, { 'content-type': 'text/html' });
      for (let i = 0; i < 10; i++) res.write('y'.repeat(10_000));
      return res.end();
    }
    // Never answers (the server's close ends it): a timeout that holds on any machine, however slow.
    if (path === '/slow') return void res.writeHead(200, { 'content-type': 'text/html' });
    if (path === '/doc.pdf')
      return res.writeHead(200, { 'content-type': 'application/pdf' }).end(tinyPdf(['Acme Widget 3000 data sheet', 'Brand: Acme', 'Material: Aluminium']));
    if (path === '/image.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(100));
    if (path.startsWith('/busy')) {
      seen.active++;
      seen.maxActive = Math.max(seen.maxActive, seen.active);
      return void setTimeout(() => {
        seen.active--;
        res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      }, 100);
    }
    return res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>missing</body></html>');
  });
});
afterAll(async () => {
  await server.close();
  await closeTestKnex();
});

/**
 * Budgets far above what a loopback fetch needs even on a loaded machine: only `/slow`, which
 * never answers, can run out of them (the timeout test uses a short budget of its own).
 */
const options: HttpFetcherOptions = {
  timeoutMs: 10_000,
  connectTimeoutMs: 5_000,
  maxBytes: 20_000,
  maxRedirects: 3,
  perHostConcurrency: 2,
  userAgent: 'test-agent/1.0',
  allowPrivate: true,
  hostIntervalMs: 0,
  crawlDelayMaxS: 0,
  maxAgeS: 0,
  robotsCacheS: 60,
  retryAfterMaxS: 60,
};

describe('createHttpFetcher', () => {
  const fetcher = createLiveFetcher(testKnex(), options);
  afterAll(() => fetcher.close());

  test('fetches an HTML page with the configured User-Agent', async () => {
    const page = await fetcher.fetch(server.url('/page'));
    expect(page).toMatchObject({ status: 200, final_url: server.url('/page'), content_type: 'text/html; charset=utf-8' });
    expect(page.body.toString()).toContain('Acme Widget');
    expect(seen.userAgents).toContain('test-agent/1.0');
  });

  test('follows redirects hop by hop and reports the final URL', async () => {
    const page = await fetcher.fetch(server.url('/hop1'));
    expect(page.status).toBe(200);
    expect(page.url).toBe(server.url('/hop1'));
    expect(page.final_url).toBe(server.url('/page'));
  });

  test('bounds redirects and refuses non-http hops', async () => {
    await expect(fetcher.fetch('not a url')).rejects.toThrow(FetchError);
    await expect(fetcher.fetch(server.url('/loop'))).rejects.toThrow(/more than 3 redirects/);
    await expect(fetcher.fetch(server.url('/to-file'))).rejects.toThrow(/refused to fetch file: URL/);
  });

  test('caps the body size, declared or streamed (too_large)', async () => {
    expect(await fetcher.fetch(server.url('/big'))).toMatchObject({ outcome: 'too_large', status: 200 });
    expect(await fetcher.fetch(server.url('/big-chunked'))).toMatchObject({ outcome: 'too_large', status: 200 });
  });

  test('times out a slow response (timeout)', async () => {
    const impatient = createLiveFetcher(testKnex(), { ...options, timeoutMs: 300 });
    try {
      expect(await impatient.fetch(server.url('/slow'))).toMatchObject({ outcome: 'timeout', status: 0 });
    } finally {
      await impatient.close();
    }
  });

  test('returns HTTP errors as statuses and skips unreadable content types', async () => {
    expect(await fetcher.fetch(server.url('/nothing'))).toMatchObject({ status: 404, outcome: 'not_found' });
    const image = await fetcher.fetch(server.url('/image.png'));
    expect(image).toMatchObject({ status: 200, content_type: 'image/png', outcome: 'unsupported_type' });
    expect(image.body.length).toBe(0);
    expect(await fetchedPageDoc(image)).toBeNull();
  });

  test('reads PDFs through the same extractors as HTML', async () => {
    const page = await fetcher.fetch(server.url('/doc.pdf'));
    expect(page.content_type).toBe('application/pdf');
    const doc = await fetchedPageDoc(page);
    expect(doc?.text).toContain('Acme Widget 3000 data sheet');
    expect(doc?.key_values).toEqual(expect.arrayContaining([expect.objectContaining({ key: 'Material', value: 'Aluminium' })]));
  });

  test('limits concurrent requests per host', async () => {
    seen.maxActive = 0;
    const pages = await Promise.all([1, 2, 3, 4, 5].map((i) => fetcher.fetch(server.url(`/busy${i}`))));
    expect(pages.every((p) => p.status === 200)).toBe(true);
    expect(seen.maxActive).toBe(2);
  });
});

describe('private-address refusal', () => {
  const strict = createLiveFetcher(testKnex(), { ...options, allowPrivate: false });
  afterAll(() => strict.close());

  test('refuses loopback literals and localhost names before connecting', async () => {
    await expect(strict.fetch(server.url('/page'))).rejects.toThrow(/not a public address/);
    await expect(strict.fetch(server.url('/page').replace('127.0.0.1', 'localhost'))).rejects.toThrow(/not a public address/);
    await expect(strict.fetch(server.url('/page').replace('127.0.0.1', '[::ffff:127.0.0.1]'))).rejects.toThrow(/not a public address/);
  });

  test('the connect-time lookup refuses names that resolve to private addresses', async () => {
    const lookup = guardedLookup(false);
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => lookup('localhost', {}, (e) => resolve(e)));
    expect(err?.message).toMatch(/not a public address/);
    const ok = await new Promise<string>((resolve) =>
      guardedLookup(true)('localhost', { family: 4 } as dns.LookupOptions, (_e, address) => resolve(String(address))),
    );
    expect(ok).toBe('127.0.0.1');
  });

  test.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fc00::1', true],
    ['fd12:3456::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:10.0.0.1', true],
    ['[::1]', true],
    ['0:0:0:0:0:ffff:7f00:1', true],
    ['not-an-ip', true],
    ['8.8.8.8', false],
    ['93.184.216.34', false],
    ['2606:4700:4700::1111', false],
    ['::ffff:8.8.8.8', false],
  ])('isNonPublicAddress(%s) = %s', (ip, expected) => {
    expect(isNonPublicAddress(ip)).toBe(expected);
  });
});
