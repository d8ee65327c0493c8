/**
 * The benchmark runner's figures (bench/figures.ts): the ratio of each kind of figure to its
 * physical limit, the target verdict, and the regression guard's comparison with a baseline file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compareWithBaseline, table, toFigure, type Baseline, type Figure } from '../../../bench/figures';
import type { Limit } from '../../../bench/limits';

const limits: Limit[] = [
  { name: 'copy_in', value: 20000, unit: 'rows/s' },
  { name: 'raw_update', value: 50000, unit: 'rows/s' },
  { name: 'gin_posting', value: 2, unit: 'ms' },
];

/** A baseline file (in a fresh temporary folder) holding `figures`. */
function baselineFile(figures: Figure[]): string {
  const baseline: Baseline = { command: 'npm run bench', date: '2026-11-29T00:00:00Z', hardware: 'test', size: 'small', load: { start: 1, end: 1 }, figures };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-baseline-')), 'baseline.json');
  fs.writeFileSync(file, JSON.stringify(baseline));
  return file;
}

describe('bench figures', () => {
  it('divides a rate by its limit, a time of n rows by the time the limit needs, a time by a time limit', () => {
    const rate = toFigure({ figure: 'bulk_create', value: 5000, unit: 'items/s', limit: 'copy_in', target: { min: 5000 } }, limits, 1.5, 2);
    expect(rate).toMatchObject({ ratio: 0.25, target: '>= 5000', pass: true, limit_value: 20000, load: 1.5, cores: 2 });
    // 100,000 rows at 50,000 rows/s = 2,000 ms; the restore took 4,000 ms.
    const time = toFigure({ figure: 'restore', value: 4000, unit: 'ms', limit: 'raw_update', rows: 100000, target: { max: 2500 } }, limits, 1, 2);
    expect(time).toMatchObject({ ratio: 0.5, target: '<= 2500', pass: false });
    const latency = toFigure({ figure: 'search', value: 40, unit: 'ms', limit: 'gin_posting' }, limits, 1, 2);
    expect(latency).toMatchObject({ ratio: 0.05, target: null, pass: null });
    expect(() => toFigure({ figure: 'x', value: 1, unit: 'ms', limit: 'raw_update' }, limits, 1, 2)).toThrow(/needs its rows/);
    expect(() => toFigure({ figure: 'x', value: 1, unit: 'rows/s', limit: 'html_parse' }, limits, 1, 2)).toThrow(/not measured/);
    expect(table([rate, time]).split('\n')).toHaveLength(4);
  });

  it('flags a ratio more than 25 % below the baseline and a figure the run did not measure', () => {
    const f = (figure: string, ratio: number) => ({ ...toFigure({ figure, value: 1, unit: 'rows/s', limit: 'copy_in' }, limits, 1, 2), ratio });
    const cmp = compareWithBaseline(baselineFile([f('a', 1), f('b', 1), f('c', 1)]), [f('a', 0.76), f('b', 0.74)]);
    expect(cmp.map((c) => [c.figure, c.verdict])).toEqual([
      ['a', 'ok'],
      ['b', 'regressed'],
      ['c', 'missing'],
    ]);
  });

  it('says whether the figure or its limit moved: a time that got longer, or a rate that held while the limit doubled', () => {
    const fig = (figure: string, value: number, unit: string, limitValue: number) =>
      toFigure(
        { figure, value, unit, limit: unit === 'ms' ? 'gin_posting' : 'keyset_pull' },
        [
          { name: 'gin_posting', value: limitValue, unit: 'ms' },
          { name: 'keyset_pull', value: limitValue, unit: 'rows/s' },
        ],
        1,
        2,
      );
    const file = baselineFile([fig('slower', 10, 'ms', 0.3), fig('rate', 70000, 'rows/s', 80000)]);
    const cmp = compareWithBaseline(file, [fig('slower', 20, 'ms', 0.3), fig('rate', 86000, 'rows/s', 160000)]);
    expect(cmp.map((c) => [c.figure, c.verdict, c.moved])).toEqual([
      ['slower', 'regressed', 'value'],
      ['rate', 'regressed', 'limit'],
    ]);
    expect(cmp[1].detail).toBe('86000 rows/s (baseline 70000), keyset_pull 160000 rows/s (baseline 80000)');
  });
});
