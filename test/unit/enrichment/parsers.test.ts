// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
import fs from 'node:fs';
import path from 'node:path';
import * as cheerio from 'cheerio';
import { parseJsonLd } from '../../../src/enrichment/parse/jsonld';
import { parseMicrodata } from '../../../src/enrichment/parse/microdata';
import { parseOpenGraph } from '../../../src/enrichment/parse/opengraph';
import { SHARED_DATA } from './data-dir';

const SAMPLES = path.join(SHARED_DATA, 'pages/extruct-samples');
const load = (rel: string) => cheerio.loadBuffer(fs.readFileSync(path.join(SAMPLES, rel)), { encoding: { defaultEncoding: 'utf-8' } });
/** extruct keeps html-text's blank lines; we keep single line breaks: compare modulo whitespace. */
const squash = (v: unknown): unknown => JSON.parse(JSON.stringify(v), (_, x) => (typeof x === 'string' ? x.replace(/\s+/g, ' ').trim() : x));
const expected = (rel: string) => JSON.parse(fs.readFileSync(path.join(SAMPLES, rel), 'utf8'));

describe('JSON-LD (extruct fixtures, incl. malformed blocks)', () => {
  it.each([
    'custom.invalid/JSONLD_with_JS_comment',
    'custom.invalid/JSONLD_with_control_characters',
    'custom.invalid/JSONLD_with_control_characters_comment',
    'misc/null_ld_mock',
  ])('%s parses like extruct', (stem) => {
    expect(parseJsonLd(load(`${stem}.html`))).toEqual(expected(`${stem}.expected-jsonld.json`));
  });
});

describe('microdata (extruct fixtures)', () => {
  it.each(['schema.org/product', 'schema.org/product-ref', 'websites/microdata-with-description'])('%s parses like extruct', (stem) => {
    expect(squash(parseMicrodata(load(`${stem}.html`)))).toEqual(squash(expected(`${stem}.expected.json`)));
  });

  it('resolves URLs against a base URL', () => {
    expect(parseMicrodata(load('schema.org/product.html'), 'http://some-example.com')).toEqual(expected('schema.org/product_custom_url.expected.json'));
  });
});

describe('OpenGraph', () => {
  it('reads og: and product: properties in order', () => {
    const want = expected('misc/opengraph_ns_product_test.expected.json')[0].properties as Array<[string, string]>;
    expect(parseOpenGraph(load('misc/opengraph_ns_product_test.html'))).toEqual(want);
  });
});
