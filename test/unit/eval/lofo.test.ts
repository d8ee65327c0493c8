import { ruleGains, rulesOffFor, siteFamily, utility, type PageOutcome } from '../../../bench/eval/lofo';
import { calibrationCell, cellProbability, fitCalibration, levelOf, wilsonLower } from '../../../src/enrichment/extract/calibration';
import type { RuleId } from '../../../src/enrichment/extract/rules';

const right = { right: true, wrong: false };
const wrong = { right: false, wrong: true };
const none = { right: false, wrong: false };

describe('leave-one-site-family-out fitting', () => {
  it('names the site family by the registrable domain, as the dev/holdout split does', () => {
    expect(siteFamily('https://www.amazon.co.uk/dp/B0')).toBe('amazon');
    expect(siteFamily('https://ar-sa.namshi.com/x')).toBe('namshi');
    expect(siteFamily('https://dom.1k.by/p')).toBe('1k');
    expect(siteFamily('https://pokupki.market.yandex.ru/product/1')).toBe('yandex');
    expect(siteFamily('https://www.olx.com.pk/item/1')).toBe('olx');
    expect(siteFamily('https://shop.example.de/a')).toBe('example');
  });

  it('keeps a rule for a family only when the other families support it', () => {
    const plain = new Map<string, PageOutcome>([
      ['a1', { price: right }],
      ['b1', { price: right }],
      ['c1', { price: wrong }],
    ]);
    const rule = 'price.from' as RuleId;
    // Off: a1 loses its right price, b1 too; c1's wrong price becomes no price.
    const ablated = new Map([
      [
        rule,
        new Map<string, PageOutcome>([
          ['a1', { price: none }],
          ['b1', { price: none }],
          ['c1', { price: none }],
        ]),
      ],
    ]);
    const gains = ruleGains(plain, ablated);
    expect(utility({ price: right, sku: wrong })).toBe(0);
    expect(Object.fromEntries(gains.get(rule)!)).toEqual({ a1: 1, b1: 1, c1: -1 });
    const familyOf = new Map([
      ['a1', 'a'],
      ['b1', 'b'],
      ['c1', 'c'],
    ]);
    // Without a: b +1, c −1 → 0, not positive: off. Without c: +2: on.
    expect(rulesOffFor('a', gains, familyOf).has(rule)).toBe(true);
    expect(rulesOffFor('c', gains, familyOf).has(rule)).toBe(false);
    // A rule no page needs is off for every family.
    expect(rulesOffFor('c', gains, familyOf).has('price.struck')).toBe(true);
  });
});

describe('confidence calibration', () => {
  it('shrinks a cell towards the overall rate and maps probabilities to levels', () => {
    const outcomes: Array<[string, boolean]> = [
      ...Array.from({ length: 40 }, (_, i) => ['structured|agree|strong|clean', i < 39] as [string, boolean]),
      ...Array.from({ length: 4 }, () => ['text|single|weak|clean', true] as [string, boolean]),
      ...Array.from({ length: 10 }, (_, i) => ['text|single|sound|clean', i < 6] as [string, boolean]),
    ];
    const cal = fitCalibration(outcomes);
    expect(cal.total).toEqual({ n: 54, right: 49 });
    // 39 of 40 right: (39 + 10 × 49/54) / 50.
    expect(cellProbability(cal, 'structured|agree|strong|clean')).toBeCloseTo((39 + (10 * 49) / 54) / 50, 6);
    // 39 of 40: the 90 % Wilson lower bound is below 0.95, so not high; 200 of 200 is.
    expect(wilsonLower(39, 40)).toBeLessThan(0.95);
    expect(levelOf(cal, 'structured|agree|strong|clean')).toBe('medium');
    expect(
      levelOf(fitCalibration(Array.from({ length: 200 }, () => ['structured|agree|strong|clean', true] as [string, boolean])), 'structured|agree|strong|clean'),
    ).toBe('high');
    // Four of four is not certainty.
    expect(levelOf(cal, 'text|single|weak|clean')).toBe('medium');
    expect(levelOf(cal, 'text|single|sound|clean')).toBe('low');
    // An unseen cell gets the overall rate.
    expect(cellProbability(cal, 'opengraph|single|strong|clean')).toBeCloseTo(49 / 54, 6);
  });

  it('names cells by method class, agreement, strength and what speaks against the value', () => {
    expect(calibrationCell({ method: 'jsonld', weight: 1, agreeing: 3, contested: false })).toBe('structured|agree|strong|clean');
    expect(calibrationCell({ method: 'text', weight: 0.4, agreeing: 1, contested: true })).toBe('text|single|weak|contested');
    // A doubtful reading has cells of its own; a strong rival still names the cell first.
    expect(calibrationCell({ method: 'jsonld', weight: 1, agreeing: 2, contested: false, doubtful: true })).toBe('structured|agree|strong|doubtful');
    expect(calibrationCell({ method: 'jsonld', weight: 1, agreeing: 2, contested: true, doubtful: true })).toBe('structured|agree|strong|contested');
  });
});
