/**
 * Currency readings of structured offers on small hand-written pages: schema.org Offer property
 * names written in another case (`itemprop="pricecurrency"`) are read as the property they spell
 * when the exact name is absent (src/enrichment/parse/products.ts `offerProp`), and RUR, the
 * rouble's code before 1998, reads as RUB (src/enrichment/normalize/currency-symbols.ts).
 */
import { createEngine } from '../../../src/enrichment';
import { currencyCode, parsePrice } from '../../../src/enrichment/normalize/price';
import { parsePage } from '../../../src/enrichment/parse/page';
import type { EnrichmentResult, OutputField } from '../../../src/enrichment/types';
import { onePageSite } from '../../helpers/one-page-site';

const URL = 'https://books.example/titles/the-quiet-harbour-9781234567897';

/** A product page whose microdata offer holds `offer` (inner HTML of the Offer item), with `body` after it. */
function microdataPage(offer: string, body = ''): string {
  return `<!doctype html><html lang="it"><head><title>The Quiet Harbour</title></head><body>
<div itemscope itemtype="http://schema.org/Product"><h1 itemprop="name">The Quiet Harbour</h1>
<div itemprop="offers" itemscope itemtype="http://schema.org/Offer">${offer}</div></div>${body}
<button class="add-to-cart">Aggiungi al carrello</button></body></html>`;
}

/** A product page with one JSON-LD Product whose single offer is `offer`. */
function jsonLdPage(offer: Record<string, unknown>): string {
  const ld = { '@context': 'https://schema.org', '@type': 'Product', name: 'The Quiet Harbour', offers: { '@type': 'Offer', ...offer } };
  return `<!doctype html><html><head><title>The Quiet Harbour</title><script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><h1>The Quiet Harbour</h1></body></html>`;
}

const offersOf = (page: string) => parsePage(URL, Buffer.from(page)).products.flatMap((p) => p.offers);

const SCHEMA: OutputField[] = [
  { name: 'price', type: 'number', description: 'Selling price' },
  { name: 'currency', type: 'string', description: 'ISO 4217 currency code of the price' },
];

/** Enriches the item through the engine with `page` as the only search result. */
async function enrich(page: string): Promise<EnrichmentResult> {
  const engine = createEngine(onePageSite(URL, page, 'The Quiet Harbour'));
  const { result } = await engine.enrich({ item: { name: 'The Quiet Harbour' }, output_schema: SCHEMA, options: { speed: 'fast', web_search: true } });
  return result;
}

describe('schema.org Offer property names in another case', () => {
  it('microdata itemprop="pricecurrency" is the offer currency', () => {
    expect(offersOf(microdataPage('<meta itemprop="price" content="16.90"><meta itemprop="pricecurrency" content="EUR">'))).toEqual([
      { price: '16.90', currency: 'EUR', availability: undefined, path: 'offers.price' },
    ]);
  });

  it('other Offer and PriceSpecification properties too (PRICE, Availability, pricespecification, pricetype)', () => {
    const offers = offersOf(
      jsonLdPage({
        PRICE: '59.00',
        Availability: 'https://schema.org/InStock',
        pricespecification: { '@type': 'UnitPriceSpecification', pricetype: 'https://schema.org/ListPrice', price: '89.00', pricecurrency: 'GBP' },
      }),
    );
    expect(offers).toEqual([{ price: '59.00', currency: 'GBP', availability: 'https://schema.org/InStock', path: 'offers.price', list_price: '89.00' }]);
  });

  it('the exact name wins when both are written', () => {
    const [offer] = offersOf(
      microdataPage('<meta itemprop="price" content="16.90"><meta itemprop="pricecurrency" content="EUR"><meta itemprop="priceCurrency" content="CHF">'),
    );
    expect(offer.currency).toBe('CHF');
  });

  it('a name that differs in more than case is not read (control)', () => {
    const [offer] = offersOf(microdataPage('<meta itemprop="price" content="16.90"><meta itemprop="price_currency" content="EUR">'));
    expect(offer.currency).toBeUndefined();
  });

  it('through the engine: the currency of a page whose only currency is a lower-case microdata property', async () => {
    const result = await enrich(
      microdataPage('<meta itemprop="price" content="16.90"><meta itemprop="pricecurrency" content="EUR">', '<p class="price">16,90</p>'),
    );
    expect(result.after_data.currency).toBe('EUR');
    expect(result.after_data.source_explanations.currency).toMatch(/priceCurrency/);
    expect(result.after_data.price).toBe(16.9);
  });

  it('without the property the engine returns no currency for that page (control)', async () => {
    const result = await enrich(microdataPage('<meta itemprop="price" content="16.90">', '<p class="price">16,90</p>'));
    expect(result.after_data.currency ?? null).toBeNull();
  });
});

describe('RUR, the rouble before 1998', () => {
  it('reads as RUB as a code and beside an amount', () => {
    expect(currencyCode('RUR')).toBe('RUB');
    expect(parsePrice('899 RUR')).toEqual({ amount: '899', currency: 'RUB', currency_text: 'RUR' });
  });

  it('not inside a word', () => {
    expect(parsePrice('RURAL 12')?.currency).not.toBe('RUB');
  });

  it('a microdata offer stating priceCurrency RUR gives the currency RUB', async () => {
    const result = await enrich(
      microdataPage('<meta itemprop="price" content="899"><meta itemprop="priceCurrency" content="RUR">', '<p class="price">899</p>'),
    );
    expect(result.after_data.currency).toBe('RUB');
  });
});
