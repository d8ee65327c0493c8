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
