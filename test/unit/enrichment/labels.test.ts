// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
import fs from 'node:fs';
import path from 'node:path';
import { pageCandidates } from '../../../src/enrichment/extract/candidates';
import { labelledCodes, urlIdTokens } from '../../../src/enrichment/parse/labels';
import { parsePage } from '../../../src/enrichment/parse/page';
import { SHARED_DATA } from './data-dir';

const ZYTE = path.join(SHARED_DATA, 'zyte-product-extraction');
const index = JSON.parse(fs.readFileSync(path.join(ZYTE, 'page-index.json'), 'utf8')) as Array<{ url: string; file: string }>;
/** Parses the archived page whose URL starts with `prefix`. */
const page = (prefix: string) => {
  const rec = index.find((r) => r.url.startsWith(prefix));
  if (!rec) throw new Error(`no archived page ${prefix}`);
  return parsePage(rec.url, fs.readFileSync(path.join(ZYTE, rec.file)));
};

describe('identifier labels in visible text', () => {
  it('reads codes after labels in several languages, also when element texts run together', () => {
    expect(labelledCodes('schliessenArt.1049084LieferbarCHF 7.95', 'sku')).toEqual([{ label: 'Art.', value: '1049084' }]);
    expect(labelledCodes('pocketsArticle number: VEI22G013-K11Size & fit', 'sku')[0].value).toBe('VEI22G013-K11');
    expect(labelledCodes('(red) Код: 01245 Все изображения', 'sku')[0].value).toBe('01245');
    expect(labelledCodes('Farbig EAN-Nummer7610186303159Nichts mehr', 'gtin')[0].value).toBe('7610186303159');
    expect(labelledCodes('Modellnummer 8856 Produktabmessungen', 'mpn')[0].value).toBe('8856');
  });

  it('ignores labels inside words and labels not followed by a code', () => {
    expect(labelledCodes('Reference guide and art. deco lamps', 'sku')).toEqual([]);
    expect(labelledCodes('heart.1234 is no label', 'sku')).toEqual([]);
  });

  it('finds the labelled article code on a real shop page (mechta.kz, Russian)', () => {
    expect(page('https://www.mechta.kz/product/telefon-sotovyy-samsung').labelled_codes?.sku.map((c) => c.value)).toContain('01245');
  });

  it('takes identifier tokens from the URL path, last first', () => {
    expect(urlIdTokens('https://www.3suisses.fr/p-montre-casio-pro-trek-304103-14347.html')).toEqual(['14347', '304103']);
    expect(urlIdTokens('https://www.laendleanzeiger.at/x/c7200a278526196/fernbedienung-tv.html')).toEqual(['278526196']);
    expect(urlIdTokens('https://shop.example/p/M67296549?x=123456')).toEqual(['M67296549']);
    expect(urlIdTokens('not a url')).toEqual([]);
  });
});

describe('page readings that are not the product or its maker', () => {
  it('drops a structured MPN that is the shop page id from the URL (Zara variant id)', () => {
    const doc = page('https://www.zara.com/be/en/flat-over-the-knee-boots');
    const product = doc.products.find((p) => p.mpn);
    expect(product?.mpn).toBeDefined();
    expect(pageCandidates(doc, 'mpn', 'mpn', [], product).map((c) => c.value)).not.toContain(product?.mpn);
  });

  it('reads no delivery charge as a price and prefers one amount over an old+new pair', () => {
    const jl = page('https://www.johnlewis.com/montreux-fabrics-rain-blocks-blue');
    expect(jl.price_texts.some((t) => /delivery/.test(t.locator))).toBe(false);
    const mechta = page('https://www.mechta.kz/product/telefon-sotovyy-samsung');
    expect(pageCandidates(mechta, 'price', 'price', [])[0].value).toBe('44890');
  });

  it('reads a spec-table model number as the MPN (amazon.de "Modellnummer")', () => {
    const doc = page('https://www.amazon.de/dp/B006V2OP48');
    expect(pageCandidates(doc, 'mpn', 'mpn', []).map((c) => c.value)).toContain('8856');
  });
});
