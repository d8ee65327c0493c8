/**
 * The post-enrichment audit's rules (src/enrichment/result-audit.ts), one finding at a time, on
 * hand-built results and evidence.
 */
import { auditResult } from '../../../src/enrichment/result-audit';
import type { EnrichmentResult, Evidence, OutputField } from '../../../src/enrichment/types';

const PAGE = 'https://shop.example/p/1';
const fields: OutputField[] = [
  { name: 'brand', type: 'string', description: 'Brand' },
  { name: 'gtin', type: 'string', description: 'GTIN-13' },
  { name: 'price', type: 'number', description: 'Price', minimum: 0 },
];

function evidence(text = 'Acme Runner 4006381333931 price 19.99'): Evidence {
  return { queries: ['q'], search_results: [{ url: PAGE, score: 1 }], documents: [{ url: PAGE, rank: 0, doc: { url: PAGE, text } }] };
}

/** A clean result: every value cited from the page research read, all high confidence. */
function result(values: Record<string, unknown> = { brand: 'Acme', gtin: '4006381333931', price: 19.99 }): EnrichmentResult {
  const sources = Object.fromEntries(Object.keys(values).map((k) => [k, [PAGE]]));
  return {
    original_data: {},
    after_data: { name: 'Runner', ...values, sources, source_explanations: {} },
    all_sources: [PAGE],
    review_info: {
      reasoning: '',
      confidence: 'high',
      flags: [],
      field_issues: [],
      field_confidence: Object.fromEntries(Object.keys(values).map((k) => [k, 'high'])),
      field_methods: {},
    },
  };
}

describe('auditResult', () => {
  it('passes a result whose values fit, cite read pages and agree with the item', () => {
    const audit = auditResult(result(), { name: 'Runner', gtin: '04006381333931' }, fields, evidence());
    expect(audit).toMatchObject({ decision: 'pass', confidence: 'high', field_issues: [] });
  });

  it('fails values that do not fit their field, whether or not validate_semantics was asked for', () => {
    const audit = auditResult(result({ brand: 'Acme', gtin: '4006381333932', price: -1 }), {}, fields, evidence('Acme 4006381333932 -1'));
    expect(audit.decision).toBe('fail');
    expect(audit.field_issues).toEqual([
      { field: 'gtin', message: 'The value is not a valid GTIN (check digit).' },
      { field: 'price', message: 'The value is below the minimum 0.' },
      { field: 'price', message: 'The value is not a plausible price (must be > 0).' },
    ]);
  });

  it("fails an identifier that differs from the item's own, and a citation of a page research never read", () => {
    const r = result();
    r.after_data.sources.brand = ['https://other.example/x'];
    const audit = auditResult(r, { gtin: '5012345678900' }, fields, evidence());
    expect(audit.decision).toBe('fail');
    expect(audit.reasons).toEqual([
      'brand: Cites a page research never read: https://other.example/x.',
      "gtin: Identifier 4006381333931 differs from the item's 5012345678900: the source may describe another product.",
    ]);
  });

  it('fails an extracted value without a source and an item-level error', () => {
    const r = result();
    delete r.after_data.sources.price;
    expect(auditResult(r, {}, fields, evidence()).field_issues).toEqual([{ field: 'price', message: 'The value has no source.' }]);
    const failed = { ...result({}), error: 'Research failed' };
    expect(auditResult(failed, {}, fields, null)).toMatchObject({ decision: 'fail', reasons: ['Enrichment failed: Research failed'] });
  });

  it('asks for review: missing required value, low confidence, replaced value, identifier absent from the cited page', () => {
    const r = result();
    r.review_info.field_confidence.price = 'low';
    const audit = auditResult(
      r,
      { brand: 'Zeta' },
      [...fields, { name: 'color', type: 'string', description: 'Colour', required: true }],
      evidence('Acme Runner price 19.99'),
    );
    expect(audit.decision).toBe('review_required');
    expect(audit.confidence).toBe('medium');
    expect(audit.field_issues).toEqual([
      { field: 'brand', message: 'Replaces the existing value "Zeta".' },
      { field: 'gtin', message: 'The identifier does not appear in the cited page.' },
      { field: 'price', message: 'Low confidence.' },
      { field: 'color', message: 'Required field has no value.' },
    ]);
  });

  it('reviews an extraction issue only when the field is not of high confidence; engine flags always', () => {
    const r = result();
    r.review_info.field_issues.push({ field: 'price', message: 'Another reading gave "24.99".' });
    expect(auditResult(r, {}, fields, evidence()).decision).toBe('pass');
    r.review_info.field_confidence.price = 'medium';
    expect(auditResult(r, {}, fields, evidence()).reasons).toEqual(['price: Flagged by extraction: Another reading gave "24.99".']);
    const flagged = result();
    flagged.review_info.flags.push('no_matching_page');
    expect(auditResult(flagged, {}, fields, evidence()).reasons).toEqual(['No page matching the item was found.']);
  });

  it('accepts merged values and values taken from the item itself; reviews a result that found nothing', () => {
    const r = result({ brand: 'Acme' });
    r.after_data.sources.brand = ['INPUT:brand'];
    expect(auditResult(r, { brand: 'Acme' }, fields, evidence()).reasons).toEqual(['Nothing was extracted.']);
    const merged = result({ brand: 'Acme' });
    expect(auditResult(merged, { brand: 'Zeta' }, [{ ...fields[0], merge: true }], evidence()).decision).toBe('pass');
  });

  it('treats documents stored by reference as read but does not search them', () => {
    const ev: Evidence = { queries: [], search_results: [], documents: [{ url: PAGE, rank: 0, doc_ref: 'ab'.repeat(32) }] };
    expect(auditResult(result(), {}, fields, ev).decision).toBe('pass');
  });
});
