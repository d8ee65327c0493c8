/**
 * An item's own page first: an item that names its page URL is read from there with
 * no search; search runs only for the wanted fields that page lacks.
 */
import { createEngine } from '../../../src/enrichment/engine';
import { itemPageUrls } from '../../../src/enrichment/research/item-page';
import type { FetchedPage, SearchOptions } from '../../../src/enrichment/research/types';

const OWN = 'https://maker.example/products/trail-kettle';
const OTHER = 'https://shop.example/trail-kettle';
const product = (extra: Record<string, unknown>) =>
  `<html><head><title>Trail Kettle 1L</title><script type="application/ld+json">${JSON.stringify({
    '@context': 'https://schema.org',
    '@type': 'Product',
    name: 'Trail Kettle 1L',
    sku: 'TK-1',
    ...extra,
  })}</script></head><body><h1>Trail Kettle 1L</h1></body></html>`;

function engineOver(pages: Record<string, string>) {
  const queries: string[] = [];
  const fetched: string[] = [];
  const engine = createEngine({
    search: {
      async search(query: string, _options: SearchOptions) {
        queries.push(query);
        return [{ url: OTHER, title: 'Trail Kettle 1L', snippet: '', score: 1 }];
      },
    },
    fetcher: {
      async fetch(url: string): Promise<FetchedPage> {
        fetched.push(url);
        const body = pages[url];
        return { url, final_url: url, status: body ? 200 : 404, content_type: 'text/html', body: Buffer.from(body ?? ''), fetched_at: '' };
      },
    },
  });
  return { engine, queries, fetched };
}

const schema = [
  { name: 'sku', type: 'string' as const, description: 'SKU' },
  { name: 'brand', type: 'string' as const, description: 'Brand' },
];

test('the URLs an item names: url, product_url, source_url, then hint URLs, each once', () => {
  expect(itemPageUrls({ url: OWN, product_url: OWN, source_url: 'ftp://x', name: 'n' }, { urls: [OTHER] })).toEqual([OWN, OTHER]);
  expect(itemPageUrls({ name: 'n' })).toEqual([]);
});

test('a page that has every wanted field is read with no search', async () => {
  const { engine, queries, fetched } = engineOver({ [OWN]: product({ brand: { '@type': 'Brand', name: 'Ridge' } }) });
  const out = await engine.enrich({ item: { name: 'Trail Kettle 1L', url: OWN }, output_schema: schema, options: { speed: 'fast', web_search: true } });
  expect(queries).toEqual([]);
  expect(fetched).toEqual([OWN]);
  expect(out.result.after_data).toMatchObject({ sku: 'TK-1', brand: 'Ridge', sources: { sku: [OWN], brand: [OWN] } });
});

test('a page that lacks a wanted field is read first, and search fills the rest', async () => {
  const { engine, queries, fetched } = engineOver({ [OWN]: product({}), [OTHER]: product({ brand: { '@type': 'Brand', name: 'Ridge' } }) });
  const out = await engine.enrich({ item: { name: 'Trail Kettle 1L', product_url: OWN }, output_schema: schema, options: { speed: 'fast', web_search: true } });
  expect(queries.length).toBeGreaterThan(0);
  expect(fetched).toEqual([OWN, OTHER]);
  expect(out.result.after_data.sources).toMatchObject({ sku: expect.arrayContaining([OWN]), brand: [OTHER] });
});
