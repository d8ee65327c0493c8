// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openArchives } from '../../../src/enrichment/research/archive';
import { domainAllowed } from '../../../src/enrichment/research/domains';
import { SHARED_DATA } from './data-dir';

const META = path.join(SHARED_DATA, 'pages/metascraper-shopping');

describe('offline web archive', () => {
  const archive = openArchives([META]);
  const overstock = archive.pages.find((p) => p.url.includes('overstock.com'))!;

  it('fetches by exact URL, canonical URL and URL without query, reporting the original URL', async () => {
    const exact = await archive.fetcher.fetch(overstock.url);
    expect(exact.status).toBe(200);
    expect(exact.final_url).toBe(overstock.url);
    expect(exact.body.length).toBeGreaterThan(1000);
    const canonical = await archive.fetcher.fetch(overstock.canonical_href!);
    expect(canonical.final_url).toBe(overstock.url);
    const stripped = await archive.fetcher.fetch(`${overstock.url.replace(/\?.*$/, '')}?utm=x#top`);
    expect(stripped.final_url).toBe(overstock.url);
    expect((await archive.fetcher.fetch('https://nowhere.example/x')).status).toBe(404);
  });

  it('finds a page by its product name and respects domain rules', async () => {
    const hits = await archive.search.search('Certified International Elegance Canape Plates', { limit: 5 });
    expect(hits[0].url).toBe(overstock.url);
    const blocked = await archive.search.search('Certified International Elegance Canape Plates', { limit: 5, blocked_domains: ['overstock.com'] });
    expect(blocked.some((h) => h.url === overstock.url)).toBe(false);
    const again = await archive.search.search('Certified International Elegance Canape Plates', { limit: 5 });
    expect(again).toEqual(hits);
  });

  it('treats a domain as covering its subdomains', () => {
    expect(domainAllowed('https://www.amazon.de/dp/X', ['amazon.de'])).toBe(true);
    expect(domainAllowed('https://notamazon.de/x', ['amazon.de'])).toBe(false);
    expect(domainAllowed('https://www.amazon.de/dp/X', undefined, ['amazon.de'])).toBe(false);
  });
});

describe('archive facts cache', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-cache-'));
  const copy = path.join(tmp, 'archive');
  const cacheDir = path.join(tmp, 'cache');
  fs.cpSync(META, copy, { recursive: true });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('writes the parsed facts once and reuses them in the next process-like open, with the same ranking', async () => {
    const cold = openArchives([copy], { cacheDir });
    cold.warm();
    const files = fs.readdirSync(cacheDir).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(1);
    const stored = JSON.parse(fs.readFileSync(path.join(cacheDir, files[0]), 'utf8')) as { pages: Array<{ url: string }> };
    expect(stored.pages.map((p) => p.url).sort()).toEqual(cold.pages.map((p) => p.url).sort());
    const warm = openArchives([copy], { cacheDir });
    const query = 'Certified International Elegance Canape Plates';
    expect(await warm.search.search(query, { limit: 5 })).toEqual(await cold.search.search(query, { limit: 5 }));
    expect(fs.readdirSync(cacheDir).filter((f) => f.endsWith('.json'))).toEqual(files);
  });

  it('rebuilds under a new key when the archive changes', () => {
    const indexFile = path.join(copy, 'page-index.json');
    const entries = JSON.parse(fs.readFileSync(indexFile, 'utf8')) as unknown[];
    fs.writeFileSync(indexFile, JSON.stringify(entries.slice(1)));
    const changed = openArchives([copy], { cacheDir });
    changed.warm();
    expect(fs.readdirSync(cacheDir).filter((f) => f.endsWith('.json'))).toHaveLength(2);
    expect(changed.pages).toHaveLength(entries.length - 1);
  });
});
