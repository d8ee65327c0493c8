// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
import fs from 'node:fs';
import path from 'node:path';
import * as cheerio from 'cheerio';
import { parseIndexFacts } from '../../../src/enrichment/parse/index-facts';
import { parseJsonLd } from '../../../src/enrichment/parse/jsonld';
import { parseMicrodata } from '../../../src/enrichment/parse/microdata';
import { parseOpenGraph } from '../../../src/enrichment/parse/opengraph';
import { productsFromJsonLd, productsFromMicrodata } from '../../../src/enrichment/parse/products';
import { SHARED_DATA } from './data-dir';

/** The facts as the DOM-based parsers read them (cheerio over htmlparser2): what the streaming pass must equal. */
function domFacts(body: Buffer) {
  const $ = cheerio.loadBuffer(body, { xml: { xmlMode: false, decodeEntities: true }, encoding: { defaultEncoding: 'utf-8' } });
  const products = [...productsFromJsonLd(parseJsonLd($)), ...productsFromMicrodata(parseMicrodata($))];
  const collapse = (t: string) => t.replace(/\s+/g, ' ').trim();
  const facts = {
    title: collapse($('title').first().text()),
    meta_description: $('meta[name="description" i]').attr('content')?.trim() || undefined,
    opengraph: parseOpenGraph($),
    products,
    text: '',
  };
  $('script,style,noscript,template,svg').remove();
  facts.text = collapse($('body').text() || $.root().text()).slice(0, 30_000);
  return facts;
}

const pages = [path.join(SHARED_DATA, 'zyte-product-extraction', 'pages'), path.join(SHARED_DATA, 'pages', 'metascraper-shopping')]
  .flatMap((d) => (fs.existsSync(d) ? fs.readdirSync(d).map((f) => path.join(d, f)) : []))
  .filter((f) => /\.html?$/.test(f));

describe('parseIndexFacts (one streaming pass)', () => {
  test('reads what the DOM-based parsers read, on every shared product page', () => {
    expect(pages.length).toBeGreaterThan(10);
    let withProducts = 0;
    for (const file of pages) {
      const body = fs.readFileSync(file);
      const facts = parseIndexFacts(body);
      expect({ file, ...facts }).toEqual({ file, ...domFacts(body) });
      if (facts.products.length) withProducts++;
    }
    expect(withProducts).toBeGreaterThan(5);
  });

  test('title, description, OpenGraph, JSON-LD and microdata products, visible text without scripts', () => {
    const html = Buffer.from(
      `<html><head><title> A  &amp; B </title><title>second</title><META NAME="Description" content=" Desc "><meta property="og:title" content="OG">
       <meta name="product:brand" content="Acme"><script type="application/ld+json">{"@type":"Product","name":"Drill","sku":"D-1","gtin13":"4006381333931"}</script>
       <style>.x{}</style></head><body><p>Visible <b>text</b></p><script>var hidden = 1</script><noscript>no</noscript>
       <div ITEMSCOPE itemtype="https://schema.org/Product"><span itemprop="name">Saw</span><meta itemprop="mpn" content="S-9"></div></body></html>`,
    );
    const facts = parseIndexFacts(html);
    expect(facts).toEqual(domFacts(html));
    expect(facts.title).toBe('A & B');
    expect(facts.meta_description).toBe('Desc');
    expect(facts.opengraph).toEqual([
      ['og:title', 'OG'],
      ['product:brand', 'Acme'],
    ]);
    expect(facts.products.map((p) => [p.name, p.sku ?? p.mpn])).toEqual([
      ['Drill', 'D-1'],
      ['Saw', 'S-9'],
    ]);
    expect(facts.text).toBe('Visible text Saw');
  });

  test('a page without <body> keeps the whole text; a declared charset is decoded', () => {
    const latin1 = Buffer.concat([Buffer.from('<meta charset="iso-8859-1"><title>Caf'), Buffer.from([0xe9]), Buffer.from('</title>plain words')]);
    const facts = parseIndexFacts(latin1);
    expect(facts).toEqual(domFacts(latin1));
    expect(facts.title).toBe('Café');
    expect(facts.text).toBe('Caféplain words');
  });
});
