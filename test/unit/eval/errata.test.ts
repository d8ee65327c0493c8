/**
 * Label errata of the pages suite (bench/eval/errata.ts): applied, an erratum replaces only its
 * own page's and field's label by the value the page states; it explains only that value.
 */
import { isErratum, withErrata, type LabelErratum } from '../../../bench/eval/errata';
import { correct } from '../../../bench/eval/pages';

const ERRATA: LabelErratum[] = [
  { page: 'page-a', field: 'price', label: ['1.250'], page_value: '1250', evidence: ['$1.250'], why: 'thousands written with a dot' },
  { page: 'page-a', field: 'currency', label: [], page_value: 'CLP', evidence: ['"priceCurrency":"CLP"'], why: 'currency stated, label empty' },
];

describe('label errata', () => {
  it('replace the erratum fields of their page and keep every other label as published', () => {
    const labels = { price: ['1.250'], sku: ['A-1'] };
    expect(withErrata(ERRATA, 'page-a', labels)).toEqual({ price: ['1250'], currency: ['CLP'], sku: ['A-1'] });
    // The published labels are not changed, and another page keeps its own.
    expect(labels).toEqual({ price: ['1.250'], sku: ['A-1'] });
    expect(withErrata(ERRATA, 'page-b', { price: ['1.250'] })).toEqual({ price: ['1.250'] });
  });

  it('the page value scores right with the erratum applied and wrong against the published label', () => {
    const applied = withErrata(ERRATA, 'page-a', { price: ['1.250'] });
    expect(correct('price', 1250, applied.price as string[])).toBe(true);
    expect(correct('price', 1250, ['1.250'])).toBe(false);
    expect(correct('price', 1.25, applied.price as string[])).toBe(false);
  });

  it('explain only the value the page states, on that page and field', () => {
    expect(isErratum(ERRATA, 'page-a', 'price', 1250)).toBe(true);
    expect(isErratum(ERRATA, 'page-a', 'price', 1.25)).toBe(false);
    expect(isErratum(ERRATA, 'page-b', 'price', 1250)).toBe(false);
    expect(isErratum(ERRATA, 'page-a', 'sku', '1250')).toBe(false);
  });
});
