import { correct, titleWithoutSite } from '../../../bench/eval/pages';
import { canonicalDecimal, count, prf } from '../../../bench/eval/metrics';

describe('pages scoring', () => {
  it('counts a wrong value as FP and FN (upstream rules)', () => {
    const c = { tp: 0, fp: 0, fn: 0 };
    count(c, true, true, true);
    count(c, true, false, true);
    count(c, false, false, true);
    count(c, true, false, false);
    expect(c).toEqual({ tp: 1, fp: 2, fn: 2 });
    expect(prf(c)).toEqual({ precision: 0.3333, recall: 0.3333, f1: 0.3333 });
  });

  it('compares prices as decimals and currencies by meaning', () => {
    expect(canonicalDecimal('30.00')).toBe('30');
    expect(correct('price', 119.01, ['119.010'])).toBe(true);
    expect(correct('price', 119, ['119.01'])).toBe(false);
    expect(correct('currency', 'EUR', ['€'])).toBe(true);
    expect(correct('currency', 'GBP', ['€'])).toBe(false);
  });

  it('drops the site part of an HTML title', () => {
    expect(titleWithoutSite('Amazon.com: 365 Potato Chips, 10 Ounce')).toBe('365 Potato Chips, 10 Ounce');
    expect(titleWithoutSite('Retrak selfie stick | Currys')).toBe('Retrak selfie stick');
  });
});
