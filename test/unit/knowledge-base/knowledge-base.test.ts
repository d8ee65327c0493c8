import { createEngine } from '../../../src/enrichment/engine';
import { knowledgeBaseDocuments, KnowledgeBaseFileError, type KnowledgeBaseFile } from '../../../src/enrichment/knowledge-base/documents';
import type { Fetcher, SearchProvider } from '../../../src/enrichment/research/types';
import type { EnrichInput, OutputField } from '../../../src/enrichment/types';
import { tinyPdf } from '../providers/fixtures';

const HTML = `<html><head><title>Acme Widget 3000 product sheet</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Acme Widget 3000","brand":"Acme","gtin13":"4006381333931"}</script>
</head><body><h1>Acme Widget 3000</h1><p>GTIN 4006381333931</p><table><tr><th>Colour</th><td>Graphite</td></tr></table></body></html>`;
const CSV = 'sku;name;brand;weight\nAW-2000;Acme Widget 2000;Acme;1.1 kg\nAW-3000;Acme Widget 3000;Acme Tools;1.4 kg\n';

const files: KnowledgeBaseFile[] = [
  {
    name: 'widget-3000-datasheet.pdf',
    content_type: 'application/pdf',
    bytes: tinyPdf(['Acme Widget 3000 data sheet', 'Material: Aluminium', 'Warranty: 5 years']),
    hosted_url: 'https://files.example.com/kb/1.pdf',
  },
  { name: 'sheet.html', content_type: 'text/html', bytes: Buffer.from(HTML), hosted_url: 'https://files.example.com/kb/2.html' },
  { name: 'price-list.csv', content_type: 'application/octet-stream', bytes: Buffer.from(CSV), hosted_url: 'https://files.example.com/kb/3.csv' },
  { name: 'notes.txt', content_type: 'text/plain', bytes: Buffer.from('Acme Widget 3000\nVoltage: 18 V\n'), hosted_url: 'https://files.example.com/kb/4.txt' },
];

test('files become SOURCE_1… documents: PDF text, HTML text + markup, CSV rows, text', async () => {
  const docs = await knowledgeBaseDocuments(files);
  expect(docs.map((d) => [d.source_id, d.name, d.hosted_url])).toEqual(files.map((f, i) => [`SOURCE_${i + 1}`, f.name, f.hosted_url]));
  expect(docs[0].text).toContain('Material: Aluminium');
  expect(docs[1].text).toContain('Graphite');
  expect(docs[1].html).toContain('application/ld+json');
  expect(docs[2].rows).toEqual([
    { sku: 'AW-2000', name: 'Acme Widget 2000', brand: 'Acme', weight: '1.1 kg' },
    { sku: 'AW-3000', name: 'Acme Widget 3000', brand: 'Acme Tools', weight: '1.4 kg' },
  ]);
  expect(docs[3].text).toContain('Voltage: 18 V');
});

test('unsupported or unreadable files are rejected with the file name', async () => {
  await expect(knowledgeBaseDocuments([{ name: 'photo.png', content_type: 'image/png', bytes: Buffer.alloc(10), hosted_url: 'x' }])).rejects.toThrow(
    KnowledgeBaseFileError,
  );
  await expect(
    knowledgeBaseDocuments([{ name: 'broken.pdf', content_type: 'application/pdf', bytes: Buffer.from('not a pdf'), hosted_url: 'x' }]),
  ).rejects.toThrow(/knowledge-base file "broken.pdf"/);
});

const fields: OutputField[] = [
  { name: 'brand', type: 'string', description: 'Brand' },
  { name: 'material', type: 'string', description: 'Main material' },
  { name: 'voltage', type: 'string', description: 'Voltage' },
  { name: 'weight', type: 'string', description: 'Weight' },
  { name: 'colour', type: 'string', description: 'Colour' },
];

describe('engine use', () => {
  const noWeb: SearchProvider = { search: async () => [] };
  const noPages: Fetcher = {
    fetch: async (url) => ({ url, final_url: url, status: 404, content_type: 'text/plain', body: Buffer.alloc(0), fetched_at: new Date(0).toISOString() }),
  };
  const engine = createEngine({ search: noWeb, fetcher: noPages });

  test.each([false, true])('values cite SOURCE_X with method knowledge_base (web_search %s)', async (webSearch) => {
    const knowledge_base = await knowledgeBaseDocuments(files);
    const input: EnrichInput = {
      item: { name: 'Acme Widget 3000', sku: 'AW-3000' },
      output_schema: fields,
      options: { speed: 'fast', web_search: webSearch, knowledge_base },
    };
    const { result } = await engine.enrich(input);
    const after = result.after_data;
    expect(after.material).toBe('Aluminium');
    expect(after.sources.material).toEqual(['SOURCE_1']);
    expect(after.source_explanations.material).toMatch(/knowledge-base file "widget-3000-datasheet.pdf" \(SOURCE_1/);
    expect(after.voltage).toBe('18 V');
    expect(after.sources.voltage).toEqual(['SOURCE_4']);
    // CSV: the row with the item's SKU, not the first row
    expect(after.weight).toBe('1.4 kg');
    expect(after.sources.weight).toEqual(['SOURCE_3']);
    expect(after.source_explanations.weight).toMatch(/"price-list.csv".*row whose sku is AW-3000/);
    expect(after.colour).toBe('Graphite');
    expect(after.sources.colour).toEqual(['SOURCE_2']);
    expect(after.sources.brand?.length).toBeGreaterThan(0);
    for (const f of ['material', 'voltage', 'weight', 'colour']) expect(result.review_info.field_methods[f]).toBe('knowledge_base');
  });

  test('documents about another product are not used', async () => {
    const knowledge_base = await knowledgeBaseDocuments([files[0], files[3]]);
    const { result } = await engine.enrich({
      item: { name: 'Zenith Blender Pro' },
      output_schema: fields,
      options: { speed: 'fast', web_search: false, knowledge_base },
    });
    expect(result.after_data.material).toBeUndefined();
    expect(result.after_data.voltage).toBeUndefined();
  });
});
