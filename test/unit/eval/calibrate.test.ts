import { memoisedCells, outOfSampleCalibration, outOfSampleCells, type CalibrationSource, type CellOutcome } from '../../../bench/eval/calibrate';
import { rulesOffFor } from '../../../bench/eval/lofo';
import type { RuleId } from '../../../src/enrichment/extract/rules';

const RULE: RuleId = 'price.widget';
const pages = [
  { id: 'a1', family: 'a' },
  { id: 'a2', family: 'a' },
  { id: 'b1', family: 'b' },
  { id: 'c1', family: 'c' },
];
const familyOf = new Map(pages.map((p) => [p.id, p.family]));

/**
 * A toy engine: the rule helps family a only (gain +1 on a1). With the rule on, a1's price is
 * read from structured data and right; with it off, from text and wrong. Every other page gives
 * one right structured value whatever the rules.
 */
function toySource(calls: string[]): CalibrationSource {
  const gains = new Map<RuleId, Map<string, number>>([[RULE, new Map([['a1', 1]])]]);
  return {
    rulesOff: (held) => rulesOffFor(held, gains, familyOf),
    cellsOf: memoisedCells(async (id, off) => {
      calls.push(`${id}:${off.has(RULE) ? 'off' : 'on'}`);
      const cells: CellOutcome[] = id === 'a1' && !off.has(RULE) ? [['structured|agree|strong|clean', true]] : [];
      if (id === 'a1' && off.has(RULE)) cells.push(['text|single|sound|clean', false]);
      if (id !== 'a1') cells.push(['structured|agree|strong|clean', true]);
      return cells;
    }),
  };
}

describe('out-of-sample calibration', () => {
  it('counts each family from a prediction whose rules were fitted without it', async () => {
    const calls: string[] = [];
    const cells = await outOfSampleCells(pages, toySource(calls));
    // Family a is predicted with the rule off (only a needs it), so a1's count is the wrong text
    // value the unseen-family engine gives, not the right value the in-sample engine gives.
    expect(cells).toContainEqual(['text|single|sound|clean', false]);
    expect(cells).not.toContainEqual(['structured|agree|strong|clean', false]);
    expect(cells).toHaveLength(4);
    expect(calls).toContain('a1:off');
    expect(calls).not.toContain('a1:on');
    const cal = await outOfSampleCalibration(pages, toySource([]));
    expect(cal.cells['text|single|sound|clean']).toEqual({ n: 1, right: 0 });
    expect(cal.total).toEqual({ n: 4, right: 3 });
  });

  it('leaves the held-out family out of the nested fit, and predicts the others without it too', async () => {
    const calls: string[] = [];
    const source = toySource(calls);
    const nested = await outOfSampleCalibration(pages, source, new Set(['b']));
    // No count from b's page; a still predicted with the rule off.
    expect(calls.some((c) => c.startsWith('b1'))).toBe(false);
    expect(nested.total).toEqual({ n: 3, right: 2 });
    // The same page under the same rules is extracted once however many nested fits ask for it.
    await outOfSampleCalibration(pages, source, new Set(['c']));
    expect(calls.filter((c) => c === 'a1:off')).toHaveLength(1);
  });

  it('holds several families out of the rule fit at once', () => {
    const gains = new Map<RuleId, Map<string, number>>([
      [
        RULE,
        new Map([
          ['a1', 1],
          ['b1', 1],
        ]),
      ],
    ]);
    // Needed by a and b: on when only one of them is held out, off when both are.
    expect(rulesOffFor(new Set(['a']), gains, familyOf).has(RULE)).toBe(false);
    expect(rulesOffFor(new Set(['a', 'b']), gains, familyOf).has(RULE)).toBe(true);
  });
});
