/**
 * Figures of the benchmark runner (bench/run-all.ts): one measured value beside the physical limit
 * measured in the same run (bench/limits.ts), their ratio, the target, and the machine's load; the
 * table and JSON lines printed; the baseline file and the comparison with it (the regression guard).
 */
import fs from 'node:fs';
import type { Limit, LimitName } from './limits';

/** One printed figure (also one JSON line). */
export interface Figure {
  figure: string;
  value: number;
  /** `items/s`, `rows/s`, `pages/s` or `ms`. */
  unit: string;
  limit: LimitName;
  limit_value: number;
  limit_unit: string;
  /**
   * The share of the physical limit reached, higher is better: a rate over the limit's rate; for
   * a time of `rows` rows against a rate limit, the time the limit needs for those rows over the
   * figure's time; for a time against a time limit (`ms`), the limit's time over the figure's.
   */
  ratio: number;
  /** The target, e.g. `>= 5000` or `<= 100`, or null when the figure has none. */
  target: string | null;
  /** Whether the value meets the target (null without one). */
  pass: boolean | null;
  load: number;
  cores: number;
}

/** What a bench says of one figure before the limit is attached. */
export interface Measured {
  figure: string;
  value: number;
  unit: string;
  limit: LimitName;
  /** Rows the time is for (time figures against a rate limit). */
  rows?: number;
  /** `min` (value ≥ target) or `max` (value ≤ target), with the target value. */
  target?: { min?: number; max?: number };
}

const round = (x: number, digits = 3) => Number(x.toPrecision(digits + 1));

/**
 * Attaches the limit, ratio, target verdict, load and cores to a measured value.
 * @throws Error when the limit was not measured or a time figure against a rate limit has no `rows`
 */
export function toFigure(m: Measured, limits: Limit[], load: number, cores: number): Figure {
  const limit = limits.find((l) => l.name === m.limit);
  if (!limit) throw new Error(`limit ${m.limit} not measured`);
  const valueIsTime = m.unit === 'ms';
  const limitIsTime = limit.unit === 'ms';
  let ratio: number;
  if (!valueIsTime) ratio = m.value / limit.value;
  else if (limitIsTime) ratio = limit.value / m.value;
  else {
    if (!m.rows) throw new Error(`${m.figure}: a time against ${m.limit} needs its rows`);
    ratio = ((m.rows / limit.value) * 1000) / m.value;
  }
  const target = m.target?.min !== undefined ? `>= ${m.target.min}` : m.target?.max !== undefined ? `<= ${m.target.max}` : null;
  const pass = m.target?.min !== undefined ? m.value >= m.target.min : m.target?.max !== undefined ? m.value <= m.target.max : null;
  return {
    figure: m.figure,
    value: round(m.value, 3),
    unit: m.unit,
    limit: m.limit,
    limit_value: round(limit.value, 3),
    limit_unit: limit.unit,
    ratio: round(ratio, 3),
    target,
    pass,
    load,
    cores,
  };
}

/** The figures as one fixed-width text table (Markdown pipe syntax, so docs/benchmarks.md can hold it as printed). */
export function table(figures: Figure[]): string {
  const rows = [
    ['figure', 'value', 'physical limit (same run)', 'ratio', 'target', 'pass', 'load', 'cores'],
    ...figures.map((f) => [
      f.figure,
      `${f.value} ${f.unit}`,
      `${f.limit} ${f.limit_value} ${f.limit_unit}`,
      String(f.ratio),
      f.target ?? '',
      f.pass === null ? '' : f.pass ? 'pass' : 'FAIL',
      String(f.load),
      String(f.cores),
    ]),
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const line = (r: string[]) => `| ${r.map((x, c) => x.padEnd(widths[c])).join(' | ')} |`;
  return [line(rows[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}

/** A recorded run: how it was made and its figures (bench/baseline.json). */
export interface Baseline {
  command: string;
  date: string;
  hardware: string;
  size: string;
  load: { start: number; end: number };
  figures: Figure[];
}

/** How far below its baseline ratio a figure's ratio may fall before the guard fails (25 %). */
export const ALLOWED_DROP = 0.25;

/** One figure compared with its baseline. */
export interface Comparison {
  figure: string;
  baseline_ratio: number;
  ratio: number | null;
  /** `ok`, `regressed` (ratio more than {@link ALLOWED_DROP} below the baseline's) or `missing` (not measured this run). */
  verdict: 'ok' | 'regressed' | 'missing';
  /**
   * What moved, for a reader of a `regressed` line: `value` when the figure itself is worse than
   * the baseline's (a time longer, a rate lower), `limit` when the figure held or improved and its
   * physical limit improved more (a limit is one measurement on a shared machine and can swing by
   * 2× within a run). The verdict is the ratio's either way. Null when missing.
   */
  moved: 'value' | 'limit' | null;
  /** `<value> <unit> (baseline <value>), <limit> <limit value> <unit> (baseline <value>)`; empty when missing. */
  detail: string;
}

/** Whether a figure in `unit` is better when lower (a time) rather than higher (a rate). */
function lowerIsBetter(unit: string): boolean {
  return unit === 'ms';
}

/**
 * Compares this run's figures with a baseline file's, by ratio (the value moves with the load, the
 * ratio much less). A figure the baseline has but this run did not measure is `missing`.
 * @throws Error when the file cannot be read or is not a baseline
 */
export function compareWithBaseline(file: string, figures: Figure[]): Comparison[] {
  const baseline = JSON.parse(fs.readFileSync(file, 'utf8')) as Baseline;
  if (!Array.isArray(baseline.figures)) throw new Error(`${file} holds no figures`);
  return baseline.figures.map((b) => {
    const now = figures.find((f) => f.figure === b.figure);
    if (!now) return { figure: b.figure, baseline_ratio: b.ratio, ratio: null, verdict: 'missing', moved: null, detail: '' };
    const worse = lowerIsBetter(now.unit) ? now.value > b.value : now.value < b.value;
    return {
      figure: b.figure,
      baseline_ratio: b.ratio,
      ratio: now.ratio,
      verdict: now.ratio < b.ratio * (1 - ALLOWED_DROP) ? 'regressed' : 'ok',
      moved: worse ? 'value' : 'limit',
      detail: `${now.value} ${now.unit} (baseline ${b.value}), ${now.limit} ${now.limit_value} ${now.limit_unit} (baseline ${b.limit_value})`,
    };
  });
}
