/**
 * The price a buyer pays on sale pages (docs/enrich-options.md, "Sale and list prices"), on small
 * hand-written pages: the sale price is the value, the list price is never the value (it is read
 * by a list-price field), and a structured price the page contradicts is not `high` confidence.
 */
import { createEngine } from '../../../src/enrichment';
import { pageCandidates } from '../../../src/enrichment/extract/candidates';
import { visibleMainPrice } from '../../../src/enrichment/extract/prices';
import { parsePage, splitWasNow, type PageDoc } from '../../../src/enrichment/parse/page';
import type { EnrichmentResult, OutputField } from '../../../src/enrichment/types';
import { onePageSite } from '../../helpers/one-page-site';

const URL = 'https://shop.example/lamps/aurora-lx-200';
const PRODUCT = { '@context': 'https://schema.org', '@type': 'Product', name: 'Aurora Desk Lamp LX-200', brand: { '@type': 'Brand', name: 'Lumina' } };

/** A product page: JSON-LD `ld` merged into a Product (none when null), extra `head` markup, then `body` HTML. */
function html(ld: Record<string, unknown> | null, body: string, head = ''): string {
  const script = ld ? `<script type="application/ld+json">${JSON.stringify({ ...PRODUCT, ...ld })}</script>` : '';
  return `<!doctype html><html lang="en"><head><title>Aurora Desk Lamp LX-200 | Lumina</title>${script}${head}</head><body><h1>Aurora Desk Lamp LX-200</h1>${body}<button class="add-to-cart">Add to cart</button></body></html>`;
}

const SCHEMA: OutputField[] = [
  { name: 'price', type: 'number', description: 'Selling price' },
  { name: 'list_price', type: 'number', description: 'Reference (list) price' },
];

/** Enriches the item through the engine with `page` as the only search result. */
async function enrich(page: string): Promise<EnrichmentResult> {
  const engine = createEngine(onePageSite(URL, page, 'Aurora Desk Lamp LX-200'));
  const { result } = await engine.enrich({
    item: { name: 'Aurora Desk Lamp LX-200', brand: 'Lumina' },
    output_schema: SCHEMA,
    options: { speed: 'fast', web_search: true, low_confidence: { enabled: true } },
  });
  return result;
}

const parse = (page: string): PageDoc => parsePage(URL, Buffer.from(page));
const offer = (price: number, extra: Record<string, unknown> = {}) => ({ '@type': 'Offer', price, priceCurrency: 'EUR', ...extra });
const listSpec = (price: number, type = 'https://schema.org/ListPrice') => ({
  '@type': 'UnitPriceSpecification',
  priceType: type,
  price,
  priceCurrency: 'EUR',
});

describe('a sale price and a struck-through list price in the HTML', () => {
  it.each([
    ['<s> inside the price element', '<div class="price-box"><s>89,00 €</s> <span>59,00 €</span></div>'],
    ['<del>/<ins> amounts', '<p class="price"><del><span class="amount">89,00 €</span></del> <ins><span class="amount">59,00 €</span></ins></p>'],
    ['<strike> text first', '<div class="price"><strike>89,00 €</strike> 59,00 €</div>'],
    ['old/special class names', '<div><span class="price-old">89,00 €</span> <span class="price-special">59,00 €</span></div>'],
  ])('%s: price 59, list price 89, never 89 as the price', async (_, body) => {
    const result = await enrich(html(null, body));
    expect(result.after_data.price).toBe(59);
    expect(result.after_data.list_price).toBe(89);
    expect(result.low_confidence_candidates ?? []).not.toContainEqual(expect.objectContaining({ name: 'price', candidate_value: '89' }));
  });

  it('splits a price element holding a struck amount into the current and the struck price', () => {
    const doc = parse(html(null, '<span class="price"><s>89,00 €</s> 59,00 €</span>'));
    expect(doc.price_texts.map((t) => t.text)).toEqual(['59,00 €', '89,00 €']);
    expect(doc.price_texts[1].signals).toContainEqual(['price.struck', -3]);
    expect(visibleMainPrice(doc, 'EUR')?.amount).toBe('59');
  });

  it('JSON-LD with the list price and the page striking it through: the shown sale price wins', async () => {
    const result = await enrich(html({ offers: offer(89) }, '<span class="price"><s>89,00 €</s> 59,00 €</span>'));
    expect(result.after_data).toMatchObject({ price: 59, list_price: 89 });
    expect(result.review_info.field_confidence.price).not.toBe('high');
  });
});

describe('structured offers with a list price', () => {
  it('two offers, the list price first: the offer the page shows as its price is the value', async () => {
    const page = html(
      { offers: [offer(89), offer(59)] },
      '<p>Regular 89,00 € now only</p><div class="product-price"><span class="price price--sale">59,00 €</span></div>',
    );
    const result = await enrich(page);
    expect(result.after_data.price).toBe(59);
    expect(result.after_data.source_explanations.price).toContain('offers[1].price');
  });

  it('an offer typed as the list price (its own ListPrice specification) is not the price beside a lower offer', async () => {
    const page = html({ offers: [offer(89, { priceSpecification: listSpec(89) }), offer(59)] }, '<span class="price">59,00 €</span>');
    expect(parse(page).products[0].offers[0]).toMatchObject({ price: '89', reference: true });
    const result = await enrich(page);
    expect(result.after_data).toMatchObject({ price: 59, list_price: 89 });
  });

  it('a StrikethroughPrice specification beside the offer price (Google strikethrough markup) is the list price', async () => {
    const page = html(
      { offers: offer(59, { priceSpecification: listSpec(89, 'https://schema.org/StrikethroughPrice') }) },
      '<span class="price">59,00 €</span>',
    );
    expect(parse(page).products[0].offers[0]).toMatchObject({ price: '59', list_price: '89' });
    const result = await enrich(page);
    expect(result.after_data).toMatchObject({ price: 59, list_price: 89 });
    expect(result.review_info.field_confidence.price).toBe('high');
  });

  it('an offer stating only a ListPrice specification has no price of its own: the list price is never the price', async () => {
    const page = html({ offers: { '@type': 'Offer', priceCurrency: 'EUR', priceSpecification: listSpec(89) } }, '<span class="price">59,00 €</span>');
    expect(parse(page).products[0].offers[0]).toMatchObject({ list_price: '89' });
    expect(parse(page).products[0].offers[0].price).toBeUndefined();
    const result = await enrich(page);
    expect(result.after_data).toMatchObject({ price: 59, list_price: 89 });
  });

  it('AggregateOffer: lowPrice, and a nested offer typed as a list price is not the price', async () => {
    const nested = html(
      {
        offers: {
          '@type': 'AggregateOffer',
          priceCurrency: 'EUR',
          offers: [
            { '@type': 'Offer', priceSpecification: listSpec(89) },
            { '@type': 'Offer', price: 59 },
          ],
        },
      },
      '<span class="price">59,00 €</span>',
    );
    expect((await enrich(nested)).after_data).toMatchObject({ price: 59, list_price: 89 });
    const aggregate = html({ offers: { '@type': 'AggregateOffer', lowPrice: 59, highPrice: 89, priceCurrency: 'EUR' } }, '<span class="price">59,00 €</span>');
    expect((await enrich(aggregate)).after_data.price).toBe(59);
  });

  it('microdata: a struck offer price and a priceSpecification typed StrikethroughPrice', async () => {
    const two = html(
      null,
      '<div itemscope itemtype="https://schema.org/Product"><h2 itemprop="name">Aurora Desk Lamp LX-200</h2>' +
        '<div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><s><span itemprop="price" content="89.00">89,00 €</span></s><meta itemprop="priceCurrency" content="EUR"></div>' +
        '<div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price" content="59.00">59,00 €</span><meta itemprop="priceCurrency" content="EUR"></div></div>',
    );
    expect((await enrich(two)).after_data.price).toBe(59);
    const spec = html(
      null,
      '<div itemscope itemtype="https://schema.org/Product"><h2 itemprop="name">Aurora Desk Lamp LX-200</h2><div itemprop="offers" itemscope itemtype="https://schema.org/Offer">' +
        '<meta itemprop="priceCurrency" content="EUR"><span itemprop="price" content="59.00">59,00 €</span>' +
        '<div itemprop="priceSpecification" itemscope itemtype="https://schema.org/UnitPriceSpecification"><link itemprop="priceType" href="https://schema.org/StrikethroughPrice"><s><span itemprop="price" content="89.00">89,00 €</span></s></div></div></div>',
    );
    expect((await enrich(spec)).after_data).toMatchObject({ price: 59, list_price: 89 });
  });
});

describe('structured price against the visible price', () => {
  /** JSON-LD and OpenGraph agree on 89 (two independent readings: `high` on their own), the page shows 59 as its price. */
  const DISAGREE = html({ offers: offer(89) }, '<span class="price">59,00 €</span>', '<meta property="product:price:amount" content="89.00">');

  it('a structured price the page contradicts is not high confidence, and the doubt is stated', async () => {
    const result = await enrich(DISAGREE);
    expect(result.after_data.price).toBe(89);
    expect(result.review_info.field_confidence.price).not.toBe('high');
    expect(result.review_info.field_issues.map((i) => i.message).join(' ')).toMatch(/59/);
    const structured = pageCandidates(parse(DISAGREE), 'price', 'price', [], parse(DISAGREE).products[0]).find((c) => c.method === 'jsonld');
    expect(structured?.doubt).toMatch(/shows 59/);
  });

  it('the same markup with the page showing 89 is high confidence (control)', async () => {
    const agree = html({ offers: offer(89) }, '<span class="price">89,00 €</span>', '<meta property="product:price:amount" content="89.00">');
    const result = await enrich(agree);
    expect(result.after_data.price).toBe(89);
    expect(result.review_info.field_confidence.price).toBe('high');
  });
});

describe('sale pages read without strike-through markup, and OpenGraph checked like the offer', () => {
  it('splits a "was … now …" text into the former and the current price, in other languages too', () => {
    expect(splitWasNow('Was 89,00 € Now 59,00 €')).toEqual({ former: 'Was 89,00 €', current: 'Now 59,00 €' });
    expect(splitWasNow('statt 89 € jetzt 59 €')).toEqual({ former: 'statt 89 €', current: 'jetzt 59 €' });
    // No former-price word first, no amount before "now", or nothing after it: not a sale text.
    expect(splitWasNow('Now 59,00 €')).toBeNull();
    expect(splitWasNow('Was: now 59,00 €')).toBeNull();
    expect(splitWasNow('Was 89,00 € now')).toBeNull();
  });

  it('"Was … Now …" in plain spans: price 59, list price 89', async () => {
    const result = await enrich(html(null, '<div class="product-price"><span>Was 89,00 €</span> <span>Now 59,00 €</span></div>'));
    expect(result.after_data).toMatchObject({ price: 59, list_price: 89 });
  });

  it('JSON-LD states the sale price the page shows beside a struck list price: price 59 at high confidence, list price 89', async () => {
    const result = await enrich(html({ offers: offer(59) }, '<div class="price"><del>89,00 €</del> <span class="price-now">59,00 €</span></div>'));
    expect(result.after_data).toMatchObject({ price: 59, list_price: 89 });
    expect(result.review_info.field_confidence.price).toBe('high');
  });

  it('OpenGraph and JSON-LD both carry the list price the page strikes through: the shown sale price wins', async () => {
    const page = html(
      { offers: offer(89) },
      '<div class="price"><del>89,00 €</del> <span class="price-now">59,00 €</span></div>',
      '<meta property="product:price:amount" content="89.00">',
    );
    const result = await enrich(page);
    expect(result.after_data).toMatchObject({ price: 59, list_price: 89 });
    const og = pageCandidates(parse(page), 'price', 'price', [], parse(page).products[0]).find((c) => c.method === 'opengraph');
    expect(og).toMatchObject({ value: '89', weight: 0.3 });
  });

  it('an OpenGraph price the visible price contradicts is doubted (never high), and the page shows which', async () => {
    const page = html(null, '<span class="price">59,00 €</span>', '<meta property="product:price:amount" content="89.00">');
    const og = pageCandidates(parse(page), 'price', 'price', [], undefined).find((c) => c.method === 'opengraph');
    expect(og?.doubt).toMatch(/shows 59/);
    const result = await enrich(page);
    expect(result.review_info.field_confidence.price).not.toBe('high');
    // Control: the same OpenGraph price with the page showing it has no doubt.
    const agree = html(null, '<span class="price">89,00 €</span>', '<meta property="product:price:amount" content="89.00">');
    expect(pageCandidates(parse(agree), 'price', 'price', [], undefined).find((c) => c.method === 'opengraph')?.doubt).toBeUndefined();
  });
});
