/**
 * What makes a page value sure, and what does not (docs/evaluation.md, "Calibrated confidence"):
 * a spec row or label that reads the very text a microdata property holds is one reading, not
 * two; a page that only lists the item among other products lends its page-level facts as doubtful.
 */
import { pageCandidates } from '../../../src/enrichment/extract/candidates';
import { calibrationCell } from '../../../src/enrichment/extract/calibration';
import { matchPage, pageReading } from '../../../src/enrichment/extract/identity';
import { parsePage, type PageDoc } from '../../../src/enrichment/parse/page';
import { vote } from '../../../src/enrichment/voting';

const URL = 'https://shop.example/p/set-4471209';
const parse = (html: string): PageDoc => parsePage(URL, Buffer.from(html));

/** A microdata product whose GTIN is written once, in a spec cell that is itself the `gtin13` property (`cell`), or apart from it. */
function gtinPage(cell: string): string {
  return `<html><head><title>Bath set</title></head><body><div itemscope itemtype="https://schema.org/Product">
    <h1 itemprop="name">Bath set</h1><table><tr><td>Kod EAN:</td>${cell}</tr></table></div></body></html>`;
}

describe('independent readings', () => {
  it('counts a spec cell that is the microdata property written as text as one reading with it', () => {
    const doc = parse(gtinPage('<td itemprop="gtin13">4006381333931</td>'));
    expect(doc.microdata_texts).toContain('4006381333931');
    const candidates = pageCandidates(doc, 'gtin', 'gtin', [], doc.products[0]);
    // Microdata, the spec row and the labelled text all read it…
    expect(candidates.map((c) => c.method).sort()).toEqual(['microdata', 'table', 'text']);
    expect(candidates.filter((c) => c.method !== 'microdata').every((c) => c.echoes === 'microdata')).toBe(true);
    // …but they are one writing of the value: no agreement, so no `agree` cell.
    const voted = vote(candidates)!;
    expect(voted.value).toBe('4006381333931');
    expect(voted.agreeing).toBe(1);
    expect(calibrationCell({ method: 'microdata', weight: 1, agreeing: voted.agreeing, contested: false })).toBe('structured|single|strong|clean');
  });

  it('still counts a microdata value stated in an attribute and a shown spec row as two readings', () => {
    const doc = parse(gtinPage('<td><meta itemprop="gtin13" content="4006381333931">4006381333931</td>'));
    expect(doc.microdata_texts ?? []).not.toContain('4006381333931');
    const voted = vote(pageCandidates(doc, 'gtin', 'gtin', [], doc.products[0]))!;
    expect(voted.value).toBe('4006381333931');
    // The attribute and the shown row are two writings: the shown readings agree with the markup.
    expect(voted.candidates.filter((c) => c.echoes !== undefined)).toEqual([]);
    expect(voted.agreeing).toBeGreaterThanOrEqual(2);
  });
});

/** A watch's page that lists, among related products, a product named like the item. */
const LISTING = `<html><head><title>Casio Pro Trek watch - Shop</title>
  <script type="application/ld+json">[
    {"@type": "Product", "name": "Casio Pro Trek watch", "brand": "Casio", "offers": {"price": "199", "priceCurrency": "EUR"}},
    {"@type": "Product", "name": "Cotton chair cover Tertio taupe", "brand": "Tertio", "offers": {"price": "36.99", "priceCurrency": "EUR"}}
  ]</script></head>
  <body><h1>Casio Pro Trek watch</h1><table><tr><td>Marque</td><td>Casio</td></tr></table></body></html>`;

describe('a page that only lists the item', () => {
  it('is matched through the listed product, and its page-level facts are doubtful', () => {
    const doc = parse(LISTING);
    const m = matchPage({ name: 'Cotton chair cover Tertio taupe', identifiers: [] }, doc);
    expect(m).toMatchObject({ kind: 'name', product: 1, listed: true });
    const read = pageCandidates(doc, 'brand', 'brand', [], doc.products[m.product!]).map((c) => pageReading(c, 1, m));
    const table = read.find((c) => c.method === 'table')!;
    expect(table.value).toBe('Casio');
    expect(table.doubt).toMatch(/only lists the item/);
    // The listed product's own markup is about the item: not doubted.
    const own = read.find((c) => c.method === 'jsonld')!;
    expect(own.value).toBe('Tertio');
    expect(own.doubt).toBeUndefined();
    // A doubtful value has a cell of its own, calibrated like any other.
    expect(calibrationCell({ method: 'table', weight: 0.5, agreeing: 1, contested: false, doubtful: true })).toBe('table|single|sound|doubtful');
  });

  it('is not "listed" when its title names the item', () => {
    const doc = parse(LISTING);
    const m = matchPage({ name: 'Casio Pro Trek watch', identifiers: [] }, doc);
    expect(m.kind).toBe('name');
    expect(m.listed).toBeUndefined();
    expect(pageCandidates(doc, 'brand', 'brand', [], doc.products[0]).map((c) => pageReading(c, 0, m).doubt)).toEqual([undefined, undefined]);
  });
});
