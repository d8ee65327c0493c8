// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
import fs from 'node:fs';
import path from 'node:path';
import { pageCandidates, shownAt, shownUrlCode, type Candidate } from '../../../src/enrichment/extract/candidates';
import { labelledPriceTexts } from '../../../src/enrichment/parse/labels';
import { parsePage, type PageDoc } from '../../../src/enrichment/parse/page';
import { pageRegion, possibleCurrencyCodes, regionalCurrency } from '../../../src/enrichment/normalize/price';
import { SHARED_DATA } from './data-dir';

const ZYTE = path.join(SHARED_DATA, 'zyte-product-extraction');
const index = JSON.parse(fs.readFileSync(path.join(ZYTE, 'page-index.json'), 'utf8')) as Array<{ url: string; file: string }>;
/** Parses the archived page whose URL starts with `prefix`. */
const page = (prefix: string): PageDoc => {
  const rec = index.find((r) => r.url.startsWith(prefix));
  if (!rec) throw new Error(`no archived page ${prefix}`);
  return parsePage(rec.url, fs.readFileSync(path.join(ZYTE, rec.file)));
};
/** The value the engine's vote would pick among one page's candidates (strongest reading plus a quarter of the group's weight). */
const winner = (cands: Candidate[]): string | string[] | undefined => {
  const groups = new Map<string, Candidate[]>();
  for (const c of cands) groups.set(String(c.value), [...(groups.get(String(c.value)) ?? []), c]);
  const score = (g: Candidate[]) => Math.max(...g.map((c) => c.weight)) + 0.25 * g.reduce((s, c) => s + c.weight, 0);
  return [...groups.values()].sort((a, b) => score(b) - score(a))[0]?.[0].value;
};
const candidates = (doc: PageDoc, role: Parameters<typeof pageCandidates>[1]) => pageCandidates(doc, role, role, [], doc.products[0]);

describe('price signals on real pages', () => {
  it('reads a JSON-LD node typed "product" in lower case (johnlewis.com)', () => {
    const doc = page('https://www.johnlewis.com/montreux-fabrics-rain-blocks-blue/');
    expect(doc.products).toHaveLength(1);
    expect(winner(candidates(doc, 'price'))).toBe('12.5');
  });

  it('takes a lone price classed "old" over the before-tax price beside it (vsezaoci.si, "Brez DDV")', () => {
    const doc = page('https://www.vsezaoci.si/pripomocki/razno/bralne-lece-stick-on');
    expect(winner(candidates(doc, 'price'))).toBe('40');
  });

  it("ignores prices in other products' tiles and recommendation widgets", () => {
    const tiles = page('https://www.vsezaoci.si/sportna-ocala/plavalna-ocala/potapljaska-maska');
    expect(winner(candidates(tiles, 'price'))).toBe('100');
    const widget = page('https://i3fresh.tw/favorable_1409.html');
    expect(widget.price_texts.filter((t) => t.locator.startsWith('div.avivid')).every((t) => t.score < -2)).toBe(true);
  });

  it('keeps "Was £14.99" a former price even when the current price element holds a footnote mark (argos.co.uk)', () => {
    const doc = page('https://www.argos.co.uk/product/9249556');
    expect(winner(candidates(doc, 'price'))).toBe('9.99');
  });

  it('reads a labelled price from text when no element is marked as a price (pcstore.com.tw)', () => {
    expect(winner(candidates(page('https://www.pcstore.com.tw/pchome24h/M67296549.htm'), 'price'))).toBe('294');
    expect(labelledPriceTexts('建議售價 $420元 一次付清特價 7 折 294 元')[0]).toEqual({ label: '特價', text: '7 折 294 元' });
    expect(labelledPriceTexts('Shipping price: $5. Price: £12.50 each')[0]?.text).toMatch(/^£12\.50/);
    expect(labelledPriceTexts('Sort by price low to high')).toEqual([]);
  });

  it('picks, among several offers, the price the page shows first (lafeltrinelli.it)', () => {
    const doc = page('https://www.lafeltrinelli.it/libri/elisabetta-gnone/storia-perduta-fairy-oak-copia/');
    expect(winner(candidates(doc, 'price'))).toBe('17.1');
    expect(shownAt('17.1', 'online: € 17,10 € 18,00')).toBeLessThan(shownAt('18', 'online: € 17,10 € 18,00'));
    expect(shownAt('18', 'Age 18+ only')).toBe(-1);
    expect(shownAt('1234.5', 'now 1.234,50 €')).toBe(4);
  });

  it('prefers the visible price to a JSON-LD price the page never shows (liveauctioneers.com)', () => {
    const doc = page('https://www.liveauctioneers.com/item/93133869');
    expect(winner(candidates(doc, 'price'))).toBe('200');
  });
});

describe('currency by region', () => {
  it('resolves shared signs with the page language region or country domain', () => {
    expect(pageRegion('zh-TW', 'https://shop.example.com/')).toBe('TW');
    expect(pageRegion(undefined, 'https://www.stockcenter.com.ar/x')).toBe('AR');
    expect(regionalCurrency('元', 'CNY', 'TW')).toBe('TWD');
    expect(regionalCurrency('$', 'USD', 'CA')).toBe('CAD');
    expect(regionalCurrency('€', 'EUR', 'US')).toBe('EUR');
    expect(possibleCurrencyCodes('Rs')).toContain('PKR');
  });
});

describe('availability signals on real pages', () => {
  it('skips an add-to-cart control\'s alternate "unavailable" label (leroymerlin.pl)', () => {
    const doc = page('https://www.leroymerlin.pl/ceramika-lazienkowa/wc/zestawy-podtynkowe/');
    expect(doc.availability_texts).not.toContain('Produkt niedostępny');
    expect(winner(candidates(doc, 'availability'))).toBe('InStock');
  });

  it('counts sibling Products of the same name as variants of one product (zara.com)', () => {
    expect(winner(candidates(page('https://www.zara.com/be/en/flat-over-the-knee-boots'), 'availability'))).toBe('InStock');
  });

  it('lets a shown sold-out message without a buy control beat a structured InStock (nay.sk, Slovak)', () => {
    expect(winner(candidates(page('https://www.nay.sk/garni-570-easy-ii-cierna'), 'availability'))).toBe('OutOfStock');
  });

  it('lets an enabled buy control beat a structured OutOfStock when no sold-out message is shown (johnlewis.com)', () => {
    expect(winner(candidates(page('https://www.johnlewis.com/gant-akron-leather-chelsea-boot/'), 'availability'))).toBe('InStock');
  });
});

describe('identifier and description signals on real pages', () => {
  it('reads an unlabelled style number that is the URL id written with separators (zara.com)', () => {
    const doc = page('https://www.zara.com/be/en/flat-over-the-knee-boots');
    expect(shownUrlCode(doc)).toBe('1002/710');
    expect(winner(candidates(doc, 'sku'))).toBe('1002/710');
  });

  it('prefers a labelled, shown product code to a markup-only SKU, and drops an MPN copied from it (johnlewis.com)', () => {
    const doc = page('https://www.johnlewis.com/gant-akron-leather-chelsea-boot/');
    expect(winner(candidates(doc, 'sku'))).toBe('39139301');
    expect(candidates(doc, 'mpn').map((c) => c.value)).not.toContain('238887908');
  });

  it('marks a JSON-LD description the page never shows, so a shown one wins (getit.co.il)', () => {
    const doc = page('https://www.getit.co.il/Prod/101693/');
    expect(doc.products[0].description_shown).toBe(false);
    expect(candidates(doc, 'description').find((c) => c.method === 'jsonld')?.weight).toBeLessThan(0.6);
  });
});
