// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
import fs from 'node:fs';
import path from 'node:path';
import { createEngine } from '../../../src/enrichment/engine';
import { parsePage } from '../../../src/enrichment/parse/page';
import type { Fetcher, SearchProvider } from '../../../src/enrichment/research/types';
import { SHARED_DATA } from './data-dir';

const ZYTE = path.join(SHARED_DATA, 'zyte-product-extraction');
const META = path.join(SHARED_DATA, 'pages/metascraper-shopping');

/** Parses an archive page by the start of its file name, with its original URL from the page index. */
function archivePage(dir: string, stem: string) {
  const index = JSON.parse(fs.readFileSync(path.join(dir, 'page-index.json'), 'utf8')) as Array<{ url: string; file: string }>;
  const entry = index.find((e) => path.basename(e.file).startsWith(stem));
  if (!entry) throw new Error(`${stem} missing from ${dir}`);
  return parsePage(entry.url, fs.readFileSync(path.join(dir, entry.file)));
}

describe("breadcrumbs as the page's category path (real pages)", () => {
  it('JSON-LD BreadcrumbList: items in position order, root "Homepage" dropped', () => {
    expect(archivePage(ZYTE, '4e545337').breadcrumbs).toEqual({ origin: 'jsonld', path: ['Home & Garden', 'Bedding', 'Throws, Blankets & Bedspreads'] });
    // Positions from 0, names on the nested `item`.
    expect(archivePage(META, 'wayfair').breadcrumbs).toEqual({
      origin: 'jsonld',
      path: ['Furniture', 'Living Room Furniture', 'Chairs & Seating', 'Accent Chairs', 'Arm Accent Chairs'],
    });
  });

  it('microdata BreadcrumbList: the root "Início" dropped; the product\'s own crumb dropped', () => {
    expect(archivePage(ZYTE, '4d2ce26f').breadcrumbs).toEqual({ origin: 'microdata', path: ['Microondas', 'Panasonic'] });
    // Zara: the shop's own name as the first crumb, the product as the last (`ItemListElement`, capitalised).
    expect(archivePage(ZYTE, '52ea2c66').breadcrumbs).toEqual({ origin: 'microdata', path: ['WOMAN'] });
  });

  it('RDFa Lite BreadcrumbList (vocab + typeof + property); the "Product Details" crumb dropped', () => {
    expect(archivePage(ZYTE, '2c42fb60').breadcrumbs).toEqual({ origin: 'rdfa', path: ['Smart Home', 'Security & Access', 'Smart Locks & Smart Door Bells'] });
  });

  it('HTML breadcrumb navigation: list items without separators; a "Back to results" bar is no trail', () => {
    expect(archivePage(META, 'amazon-gorilla').breadcrumbs).toEqual({
      origin: 'html',
      path: ['Industrial & Scientific', 'Adhesives, Sealants & Lubricants', 'Adhesive Tapes', 'Duct Tape'],
    });
    expect(archivePage(META, 'amazon.html').breadcrumbs).toBeUndefined();
  });

  it('a WAI-ARIA breadcrumb nav: leading Home and the current page dropped', () => {
    const html = `<html><head><title>LACK side table</title></head><body>
      <nav aria-label="Breadcrumb"><ol>
        <li><a href="/">Home</a></li><li><a href="/furniture">Furniture</a></li>
        <li><a href="/furniture/tables">Tables</a></li><li aria-current="page">LACK side table</li>
      </ol></nav><h1>LACK side table</h1></body></html>`;
    expect(parsePage('https://shop.example/lack', Buffer.from(html)).breadcrumbs).toEqual({ origin: 'html', path: ['Furniture', 'Tables'] });
  });

  it('a category output field reads the breadcrumb path', async () => {
    const url = 'https://shop.example/lack';
    const html = `<html><head><title>LACK side table</title>
      <script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"LACK side table","brand":"IKEA"}</script>
      <script type="application/ld+json">{"@context":"https://schema.org","@type":"BreadcrumbList","itemListElement":[
        {"@type":"ListItem","position":3,"name":"Tables","item":"https://shop.example/furniture/tables"},
        {"@type":"ListItem","position":1,"name":"Home","item":"https://shop.example/"},
        {"@type":"ListItem","position":2,"name":"Furniture","item":"https://shop.example/furniture"}]}</script>
      </head><body><h1>LACK side table</h1></body></html>`;
    const search: SearchProvider = { search: async () => [{ url, title: '', snippet: '', score: 1 }] };
    const fetcher: Fetcher = {
      fetch: async (u) => ({ url: u, final_url: u, status: 200, content_type: 'text/html', body: Buffer.from(html), fetched_at: new Date(0).toISOString() }),
    };
    const { result } = await createEngine({ search, fetcher }).enrich({
      item: { name: 'LACK side table' },
      output_schema: [{ name: 'category', type: 'string', description: 'Category path' }],
      options: { speed: 'fast', web_search: true },
    });
    expect(result.after_data.category).toBe('Furniture > Tables');
    expect(result.review_info.field_methods.category).toBe('jsonld');
    expect(result.after_data.source_explanations.category).toMatch(/BreadcrumbList/);
  });
});
