// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
import path from 'node:path';
import { createEngine, openArchives } from '../../../src/enrichment';
import { PAGES_SCHEMA } from '../../../bench/eval/pages';
import { withSourceHints } from '../../../src/enrichment/research/hints';
import { SHARED_DATA } from '../../helpers/data';

describe('source hints (source_hint_sets)', () => {
  const results = [
    { url: 'https://a.example/p/1', score: 0.3 },
    { url: 'https://shop.b.example/p/2', score: 0.2 },
    { url: 'https://c.example/p/3', score: 0.1 },
  ];

  it('puts hinted URLs first, then results on hinted domains (with subdomains), then the rest', () => {
    const out = withSourceHints(results, { urls: ['https://c.example/p/3', 'https://new.example/x'], domains: ['b.example'] });
    expect(out.map((r) => r.url)).toEqual(['https://c.example/p/3', 'https://new.example/x', 'https://shop.b.example/p/2', 'https://a.example/p/1']);
    expect(out[0].score).toBeGreaterThan(out[1].score);
  });

  it('leaves results unchanged without hints and ignores non-http URLs', () => {
    expect(withSourceHints(results, undefined)).toBe(results);
    expect(withSourceHints(results, { urls: ['javascript:alert(1)'] }).map((r) => r.url)).toEqual(results.map((r) => r.url));
  });

  it('makes the engine read a hinted page first, while identity checks still reject a page of another product', async () => {
    const archive = openArchives([path.join(SHARED_DATA, 'zyte-product-extraction')]);
    const engine = createEngine({ search: archive.search, fetcher: archive.fetcher });
    const other = archive.pages.find((p) => p.url.includes('johnlewis.com'))!;
    const item = { name: 'Google Nest Hello Wi-Fi Video Doorbell - Black/White' };
    const { evidence, result } = await engine.enrich({
      item,
      output_schema: PAGES_SCHEMA,
      options: { speed: 'fast', web_search: true, source_hints: { urls: [other.url] } },
    });
    expect(evidence.search_results[0].url).toBe(other.url);
    // The hinted page is about another product: it lends nothing; values come from the item's own page.
    const cited = Object.values(result.after_data.sources).flat();
    expect(cited).not.toContain(other.url);
    expect(result.after_data.sources.price?.[0]).toMatch(/bestbuy\.ca/);
  });
});
