// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
import fs from 'node:fs';
import path from 'node:path';
import { createEngine } from '../../../src/enrichment/engine';
import { parsePage } from '../../../src/enrichment/parse/page';
import { openArchives } from '../../../src/enrichment/research/archive';
import type { Fetcher, SearchProvider } from '../../../src/enrichment/research/types';
import type { EnrichInput, OutputField } from '../../../src/enrichment/types';
import { SHARED_DATA } from './data-dir';

/**
 * schema.org QuantitativeValues (`{value, unitCode | unitText}`, UN/CEFACT Rec 20 codes) on a
 * product: the parser keeps the unit beside the number and the extractor converts to the
 * output field's `unit`. Of the archives' 108 real pages only one states a product quantity so
 * (an OLX car's mileage); no page states a dimension or weight, so those pages are synthetic.
 */
const ZYTE = path.join(SHARED_DATA, 'zyte-product-extraction');
const JSONLD_URL = 'https://shop.example.com/oakline-side-table';
const JSONLD_PAGE = `<html><head><title>Oakline Side Table</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Oakline Side Table","brand":{"@type":"Brand","name":"Oakline"},"sku":"OL-1",
"weight":{"@type":"QuantitativeValue","value":"1.2","unitCode":"KGM"},
"width":{"@type":"QuantitativeValue","value":45,"unitCode":"CMT"},
"height":{"@type":"QuantitativeValue","value":"0.75","unitCode":"MTR"},
"depth":{"@type":"QuantitativeValue","value":"17.5","unitText":"inches"},
"additionalProperty":[
  {"@type":"PropertyValue","name":"Max load","value":"22","unitCode":"LBR"},
  {"@type":"PropertyValue","name":"Colour","value":"Oak"},
  {"@type":"PropertyValue","name":"Top thickness","value":{"@type":"QuantitativeValue","value":"1.8","unitCode":"CMT"}}]}</script>
</head><body><h1>Oakline Side Table</h1><p>A small side table in solid oak.</p></body></html>`;

const MICRODATA_URL = 'https://shop.example.com/kettle-k2';
const MICRODATA_PAGE = `<html><head><title>Brewmaster Kettle K2</title></head><body>
<div itemscope itemtype="https://schema.org/Product">
  <h1 itemprop="name">Brewmaster Kettle K2</h1>
  <div itemprop="weight" itemscope itemtype="https://schema.org/QuantitativeValue">
    Weight: <span itemprop="value">2.5</span> <meta itemprop="unitCode" content="LBR">lb
  </div>
  <div itemprop="additionalProperty" itemscope itemtype="https://schema.org/PropertyValue">
    <meta itemprop="name" content="capacity"><meta itemprop="value" content="1.7"><meta itemprop="unitCode" content="LTR">
  </div>
</div>
<table><tr><th>Capacity</th><td>1.7 l</td></tr></table>
</body></html>`;

const PAGES: Record<string, string> = { [JSONLD_URL]: JSONLD_PAGE, [MICRODATA_URL]: MICRODATA_PAGE };
const search: SearchProvider = {
  search: async (query) =>
    Object.keys(PAGES)
      .filter((u) => (/kettle/i.test(query) ? u === MICRODATA_URL : u === JSONLD_URL))
      .map((url) => ({ url, title: '', snippet: '', score: 1 })),
};
const fetcher: Fetcher = {
  fetch: async (url) => ({
    url,
    final_url: url,
    status: PAGES[url] ? 200 : 404,
    content_type: 'text/html',
    body: Buffer.from(PAGES[url] ?? ''),
    fetched_at: new Date(0).toISOString(),
  }),
};
const engine = createEngine({ search, fetcher });
const input = (name: string, fields: OutputField[]): EnrichInput => ({ item: { name }, output_schema: fields, options: { speed: 'fast', web_search: true } });

describe('QuantitativeValue units (schema.org, UN/CEFACT Rec 20)', () => {
  it("the parser keeps each quantity's unitCode / unitText beside its number", () => {
    const jsonld = parsePage(JSONLD_URL, Buffer.from(JSONLD_PAGE)).products[0];
    expect(jsonld.properties).toMatchObject({
      weight: '1.2',
      width: '45',
      height: '0.75',
      depth: '17.5',
      'Max load': '22',
      Colour: 'Oak',
      'Top thickness': '1.8',
    });
    expect(jsonld.units).toEqual({ weight: 'KGM', width: 'CMT', height: 'MTR', depth: 'inches', 'Max load': 'LBR', 'Top thickness': 'CMT' });
    const microdata = parsePage(MICRODATA_URL, Buffer.from(MICRODATA_PAGE)).products[0];
    expect(microdata.properties).toMatchObject({ weight: '2.5', capacity: '1.7' });
    expect(microdata.units).toEqual({ weight: 'LBR', capacity: 'LTR' });
  });

  it("converts JSON-LD quantities to each field's unit (1.2 KGM → 1200 g)", async () => {
    const { result } = await engine.enrich(
      input('Oakline Side Table', [
        { name: 'weight', type: 'number', unit: 'g', description: 'Weight' },
        { name: 'width', type: 'number', unit: 'mm', description: 'Width' },
        { name: 'height', type: 'integer', unit: 'cm', description: 'Height' },
        { name: 'depth', type: 'number', unit: 'cm', description: 'Depth' },
        { name: 'max_load', type: 'number', unit: 'kg', description: 'Maximum load' },
        { name: 'colour', type: 'string', description: 'Colour' },
        { name: 'top_thickness', type: 'number', unit: 'mm', description: 'Thickness of the top' },
      ]),
    );
    const after = result.after_data;
    expect(after.weight).toBe(1200);
    expect(after.width).toBe(450);
    expect(after.height).toBe(75);
    expect(after.depth).toBeCloseTo(44.45, 6);
    expect(after.max_load).toBeCloseTo(9.979, 3);
    expect(after.colour).toBe('Oak');
    expect(after.top_thickness).toBe(18);
    expect(after.sources.weight).toEqual([JSONLD_URL]);
    expect(after.source_explanations.weight).toMatch(/weight.*KGM/);
    expect(result.review_info.field_methods.weight).toBe('jsonld');
  });

  it('a text field keeps the unit with the number; a field in another kind of unit gets nothing', async () => {
    const { result } = await engine.enrich(
      input('Oakline Side Table', [
        { name: 'weight', type: 'string', description: 'Weight as written' },
        { name: 'width', type: 'number', unit: 'kg', description: 'Width (wrongly declared in kg)' },
      ]),
    );
    expect(result.after_data.weight).toBe('1.2 kg');
    expect(result.after_data.width).toBeUndefined();
  });

  it('microdata quantities convert too; the spec row "1.7 l" agrees with the microdata 1.7 LTR', async () => {
    const { result } = await engine.enrich(
      input('Brewmaster Kettle K2', [
        { name: 'weight', type: 'number', unit: 'kg', description: 'Weight' },
        { name: 'capacity', type: 'number', unit: 'ml', description: 'Capacity' },
      ]),
    );
    expect(result.after_data.weight).toBeCloseTo(1.133981, 5); // 2.5 lb
    expect(result.review_info.field_methods.weight).toBe('microdata');
    expect(result.after_data.capacity).toBe(1700);
    expect(result.review_info.field_confidence.capacity).toBe('high');
  });

  it('agreeing readings in different units vote together (JSON-LD 1.2 KGM and a "1200 g" spec row)', async () => {
    const page = JSONLD_PAGE.replace('</body>', '<table><tr><th>Weight</th><td>1200 g</td></tr></table></body>');
    const local = createEngine({
      search,
      fetcher: { fetch: async (url) => ({ ...(await fetcher.fetch(url)), body: Buffer.from(url === JSONLD_URL ? page : '') }) },
    });
    const { result } = await local.enrich(input('Oakline Side Table', [{ name: 'weight', type: 'number', unit: 'kg', description: 'Weight' }]));
    expect(result.after_data.weight).toBe(1.2);
    expect(result.review_info.field_confidence.weight).toBe('high');
    expect(result.review_info.field_issues.filter((i) => i.field === 'weight')).toEqual([]);
  });

  it('a real page: the OLX car listing states mileageFromOdometer as a QuantitativeValue in KMT', async () => {
    const entry = (JSON.parse(fs.readFileSync(path.join(ZYTE, 'page-index.json'), 'utf8')) as Array<{ url: string; file: string }>).find((e) =>
      e.file.includes('d8ae57c78bf2dcb5'),
    );
    if (!entry) throw new Error('OLX page missing from the archive');
    const car = parsePage(entry.url, fs.readFileSync(path.join(ZYTE, entry.file))).products.find((p) => p.properties.mileageFromOdometer !== undefined);
    expect(car?.properties.mileageFromOdometer).toBe('89000');
    expect(car?.units).toEqual({ mileageFromOdometer: 'KMT' });
    const archive = openArchives([ZYTE]);
    const { result } = await createEngine({ search: archive.search, fetcher: archive.fetcher }).enrich(
      input('Suzuki Alto vxr 2010', [{ name: 'mileage_from_odometer', type: 'integer', unit: 'mi', description: 'Odometer reading' }]),
    );
    expect(result.after_data.sources.mileage_from_odometer).toEqual([entry.url]);
    expect(result.after_data.mileage_from_odometer).toBe(55302); // 89,000 km in miles
  });
});
