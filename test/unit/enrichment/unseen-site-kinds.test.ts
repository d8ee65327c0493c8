/**
 * The kinds of errors left on product pages of site families the engine never saw,
 * each on small synthetic pages written here: a sale page whose markup carries the list price,
 * a SKU guessed from an id in the URL, and MPNs printed only under a localised label.
 */
import { createEngine } from '../../../src/enrichment';
import { confirmedCode, pageCandidates, shownSale, urlNamesOffer, type Candidate } from '../../../src/enrichment/extract/candidates';
import { fieldRole } from '../../../src/enrichment/extract/roles';
import { labelledCodes } from '../../../src/enrichment/parse/labels';
import { parsePage, type PageDoc } from '../../../src/enrichment/parse/page';
import type { FetchedPage } from '../../../src/enrichment/research/types';
import type { OutputField } from '../../../src/enrichment/types';

const PRODUCT = { '@context': 'https://schema.org', '@type': 'Product', name: 'Aurora Desk Lamp LX-200', brand: { '@type': 'Brand', name: 'Lumina' } };

/** A product page: JSON-LD `ld` (merged into a Product), then `body` HTML. */
function html(ld: Record<string, unknown> | null, body: string): string {
  const script = ld ? `<script type="application/ld+json">${JSON.stringify({ ...PRODUCT, ...ld })}</script>` : '';
  return `<!doctype html><html lang="en"><head><title>Aurora Desk Lamp LX-200 | Lumina</title>${script}</head><body><h1>Aurora Desk Lamp LX-200</h1>${body}<button class="add-to-cart">Add to cart</button></body></html>`;
}

const parse = (url: string, page: string): PageDoc => parsePage(url, Buffer.from(page));

/** The value the engine's vote would pick among one page's candidates (strongest reading plus a quarter of the group's weight). */
function winner(cands: Candidate[]): string | string[] | undefined {
  const groups = new Map<string, Candidate[]>();
  for (const c of cands) groups.set(String(c.value), [...(groups.get(String(c.value)) ?? []), c]);
  const score = (g: Candidate[]) => Math.max(...g.map((c) => c.weight)) + 0.25 * g.reduce((s, c) => s + c.weight, 0);
  return [...groups.values()].sort((a, b) => score(b) - score(a))[0]?.[0].value;
}

const candidates = (doc: PageDoc, role: Parameters<typeof pageCandidates>[1]) => pageCandidates(doc, role, role, [], doc.products[0]);

/** A sale page: JSON-LD states the list price 89.00, the page shows 59.00 and the struck 89.00. */
const SALE = html(
  { offers: { '@type': 'Offer', price: '89.00', priceCurrency: 'EUR', availability: 'https://schema.org/InStock' } },
  '<div class="product-price"><span class="price price--sale">59,00 €</span> <del><span class="price price--old">89,00 €</span></del></div>',
);

describe('a sale page whose structured data carries the list price', () => {
  const doc = parse('https://shop.example/lamps/aurora-lx-200', SALE);

  it('reads the sale from the page: the current price and the struck former one', () => {
    const sale = shownSale(doc, 'EUR');
    expect(sale?.current.amount).toBe('59');
    expect(sale?.former.amount).toBe('89');
  });

  it('offers the price the page shows now, and the markup price as the list price', () => {
    expect(winner(candidates(doc, 'price'))).toBe('59');
    expect(winner(candidates(doc, 'list_price'))).toBe('89');
  });

  it('keeps the structured price when the page shows it as the current one (no sale)', () => {
    const plain = parse(
      'https://shop.example/lamps/aurora-lx-200',
      html({ offers: { '@type': 'Offer', price: '89.00', priceCurrency: 'EUR' } }, '<span class="price">89,00 €</span>'),
    );
    expect(shownSale(plain, 'EUR')).toBeNull();
    expect(winner(candidates(plain, 'price'))).toBe('89');
    // No sale: the reference price is unknown, not the price.
    expect(candidates(plain, 'list_price')).toEqual([]);
  });

  it('reads a schema.org ListPrice specification as the list price, never as the price', () => {
    const spec = parse(
      'https://shop.example/lamps/aurora-lx-200',
      html(
        {
          offers: {
            '@type': 'Offer',
            priceCurrency: 'EUR',
            priceSpecification: [
              { '@type': 'UnitPriceSpecification', priceType: 'https://schema.org/ListPrice', price: 89 },
              { '@type': 'UnitPriceSpecification', price: 59 },
            ],
          },
        },
        '<span class="price">59,00 €</span>',
      ),
    );
    expect(spec.products[0]?.offers[0]).toMatchObject({ price: '59', list_price: '89' });
    expect(winner(candidates(spec, 'price'))).toBe('59');
    expect(winner(candidates(spec, 'list_price'))).toBe('89');
  });

  it('gives list-price field names their own role, and leaves the selling price names to price', () => {
    const role = (name: string) => fieldRole({ name, type: 'number', description: '' });
    expect(['list_price', 'regular_price', 'original_price', 'compare_at_price', 'msrp', 'rrp'].map(role)).toEqual(Array(6).fill('list_price'));
    expect(['price', 'sale_price', 'current_price', 'retail_price'].map(role)).toEqual(Array(4).fill('price'));
  });

  it('through the engine: price 59 and list_price 89, each cited to the page', async () => {
    const url = 'https://shop.example/lamps/aurora-lx-200';
    const page: FetchedPage = { url, final_url: url, status: 200, content_type: 'text/html', body: Buffer.from(SALE), fetched_at: new Date(0).toISOString() };
    const engine = createEngine({
      search: { search: async () => [{ url, title: 'Aurora Desk Lamp LX-200', snippet: '', score: 1 }] },
      fetcher: { fetch: async () => page },
    });
    const schema: OutputField[] = [
      { name: 'price', type: 'number', description: 'Selling price' },
      { name: 'list_price', type: 'number', description: 'Reference (list) price' },
    ];
    const { result } = await engine.enrich({
      item: { name: 'Aurora Desk Lamp LX-200', brand: 'Lumina' },
      output_schema: schema,
      options: { speed: 'fast', web_search: true },
    });
    expect(result.after_data).toMatchObject({ price: 59, list_price: 89 });
    expect(result.after_data.sources.price).toEqual([url]);
    expect(result.after_data.sources.list_price).toEqual([url]);
  });
});

describe('a SKU guessed from an id in the URL', () => {
  const url = 'https://shop.example/p/aurora-desk-lamp-4471209';

  it('is offered when the page shows the id as a code of its own', () => {
    const doc = parse(url, html(null, '<p class="meta">Item 4471209 · ships in 2 days</p><span class="price">59,00 €</span>'));
    expect(confirmedCode(doc, '4471209')).toBe(true);
    expect(candidates(doc, 'sku').map((c) => c.value)).toContain('4471209');
  });

  it('is a weak reading (weight 0.3, low confidence) when the page never confirms it and offers no other SKU', () => {
    const doc = parse(url, html(null, '<span class="price">59,00 €</span><p>Call 044712099 for advice.</p>'));
    // A longer number that contains the id is no confirmation.
    expect(confirmedCode(doc, '4471209')).toBe(false);
    expect(candidates(doc, 'sku').map((c) => [c.value, c.weight])).toEqual([['4471209', 0.3]]);
  });

  it('is left out when unconfirmed and the page gives a SKU of its own', () => {
    const doc = parse(url, html({ sku: 'LX-200-BLK' }, '<span class="price">59,00 €</span><p>SKU: LX-200-BLK</p>'));
    expect(candidates(doc, 'sku').map((c) => c.value)).not.toContain('4471209');
    expect(winner(candidates(doc, 'sku'))).toBe('LX-200-BLK');
  });

  it('is left out when the URL query names an offer or variant (the path id is the catalogue product)', () => {
    for (const u of [`${url}?variant=39912345678`, `${url}?offerid=5Hm3xUsb&uid=1`]) {
      expect(urlNamesOffer(u)).toBe(true);
      expect(candidates(parse(u, html(null, '<span class="price">59,00 €</span>')), 'sku')).toEqual([]);
    }
    expect(urlNamesOffer(`${url}?utm_source=feed`)).toBe(false);
  });

  it('is confirmed by the markup stating it as the product id', () => {
    const doc = parse(url, html({ productID: 'sku:4471209' }, '<span class="price">59,00 €</span>'));
    expect(confirmedCode(doc, '4471209', doc.products[0])).toBe(true);
  });
});

describe('MPNs printed only under a localised label', () => {
  const table = (label: string, value: string) =>
    parse(
      'https://shop.example/p/aurora',
      html(null, `<table class="specs"><tr><th>Weight</th><td>1.2 kg</td></tr><tr><th>${label}</th><td>${value}</td></tr></table>`),
    );

  it.each([
    ['Part number', 'LX-200-EU'],
    ['Kód výrobcu', 'LX200EU'],
    ['Herstellernummer', 'LX-200/EU'],
    ['Hersteller-Artikelnummer', 'LX-200-EU'],
    ['Numéro de pièce', 'LX-200-EU'],
    ['Codice produttore', 'LX200-EU'],
    ['Número de pieza', 'LX-200-EU'],
    ['Numero de pieza', 'LX-200-EU'],
    ['Referencia del fabricante', 'LX-200-EU'],
    ['Číslo dílu', 'LX-200-EU'],
    ['Kod producenta', 'LX-200-EU'],
    ['Manufacturer Part No.', 'LX-200-EU'],
  ])('reads "%s" in a spec table', (label, value) => {
    expect(winner(candidates(table(label, value), 'mpn'))).toBe(value);
  });

  it.each([
    ['Part number: LX-200-EU', 'LX-200-EU'],
    ['Kód výrobcu: LX200EU', 'LX200EU'],
    ['Herstellernummer LX-200/EU', 'LX-200/EU'],
    ['Numéro de pièce : LX-200-EU', 'LX-200-EU'],
    ['Codice produttore: LX200-EU', 'LX200-EU'],
    ['Número de pieza: LX-200-EU', 'LX-200-EU'],
  ])('reads "%s" in running text', (text, value) => {
    expect(labelledCodes(`Aurora desk lamp. ${text}. Warranty 2 years.`, 'mpn')[0]?.value).toBe(value);
    const doc = parse('https://shop.example/p/aurora', html(null, `<p>Aurora desk lamp. ${text}. Warranty 2 years.</p>`));
    expect(winner(candidates(doc, 'mpn'))).toBe(value);
  });

  it("does not read the manufacturer's number as the shop's SKU", () => {
    expect(labelledCodes('Hersteller-Artikelnummer: LX-200-EU', 'sku')).toEqual([]);
    expect(labelledCodes('Artikelnummer: 4471209', 'sku')[0]?.value).toBe('4471209');
  });
});
