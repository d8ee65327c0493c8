/**
 * Calibrated field confidence: a value read from web pages is described by a coarse
 * cell of how it was read (method class, whether independent readings agree, the strength of
 * the best reading, whether a strong rival disagrees); the share of right values per cell,
 * counted on labelled pages, is the value's probability of being right; `high` and `medium` are
 * thresholds on it (`high` on its 90 % lower bound). Cells are few on purpose (≤ 72, most of them
 * rare) so that a hundred labelled pages fill the common ones.
 * Probabilities are shrunk towards the overall rate (additive smoothing with `prior_weight`
 * pseudo-counts), so a cell seen a few times does not claim certainty.
 */

/** What the calibration reads of one voted value. */
export interface CalibrationFeatures {
  /** The best reading's method (`jsonld`, `microdata`, `opengraph`, `table`, `text`, `knowledge_base`, …). */
  method: string;
  /** Its weight after page weighting, 0–1. */
  weight: number;
  /** Distinct method@page readings that agree on the value. */
  agreeing: number;
  /** Whether a reading of weight ≥ 0.5 gave another value. */
  contested: boolean;
  /**
   * Whether a reading of the value is doubtful although its source is strong (`Candidate.doubt`:
   * the page shows another price than its markup states, or the reading is a page-level fact of a
   * page that only lists the item among other products). Absent: false.
   */
  doubtful?: boolean;
}

/** Counts per cell (`right` of `n` values right) and the thresholds: probability ≥ high → `high`, ≥ medium → `medium`. */
export interface Calibration {
  cells: Record<string, { n: number; right: number }>;
  /** Overall counts, the smoothing prior. */
  total: { n: number; right: number };
  /** Pseudo-counts of the prior in every cell. */
  prior_weight: number;
  high: number;
  medium: number;
}

/**
 * The cell of a value: `structured|agree|strong|clean` etc. The last part is what speaks against
 * the value: `contested` (a strong rival reading), else `doubtful` (a doubtful reading of it,
 * {@link CalibrationFeatures.doubtful}), else `clean`.
 */
export function calibrationCell(f: CalibrationFeatures): string {
  const method = f.method === 'jsonld' || f.method === 'microdata' ? 'structured' : f.method === 'opengraph' || f.method === 'table' ? f.method : 'text';
  const strength = f.weight >= 0.85 ? 'strong' : f.weight >= 0.5 ? 'sound' : 'weak';
  const against = f.contested ? 'contested' : f.doubtful ? 'doubtful' : 'clean';
  return `${method}|${f.agreeing >= 2 ? 'agree' : 'single'}|${strength}|${against}`;
}

/** Probability (0–1) that a value in `cell` is right: smoothed share of right values in the cell. */
export function cellProbability(cal: Calibration, cell: string): number {
  const c = cal.cells[cell] ?? { n: 0, right: 0 };
  const base = cal.total.n > 0 ? cal.total.right / cal.total.n : 0.5;
  return (c.right + cal.prior_weight * base) / (c.n + cal.prior_weight);
}

/** z of a one-sided 90 % bound (the standard normal's 0.9 quantile). */
const Z90 = 1.2816;

/**
 * Lower bound of the Wilson score interval (Wilson 1927) for `right` of `n`: with 90 %
 * confidence the cell's precision is at least this. 0 for an empty cell.
 */
export function wilsonLower(right: number, n: number, z = Z90): number {
  if (n === 0) return 0;
  const p = right / n;
  const z2 = z * z;
  return (p + z2 / (2 * n) - z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
}

/**
 * The confidence level of a cell: `high` when the cell's precision is at least `cal.high` with
 * 90 % confidence (Wilson lower bound: `high` is a promise for unseen sites, so it needs margin;
 * a cell of 3 right of 3 never qualifies), `medium` when its smoothed probability
 * ({@link cellProbability}) is at least `cal.medium`, else `low`.
 */
export function levelOf(cal: Calibration, cell: string): 'high' | 'medium' | 'low' {
  const c = cal.cells[cell] ?? { n: 0, right: 0 };
  if (wilsonLower(c.right, c.n) >= cal.high) return 'high';
  return cellProbability(cal, cell) >= cal.medium ? 'medium' : 'low';
}

/**
 * Fits a calibration from labelled outcomes `[cell, right]` (one per returned value). The
 * thresholds are the targets (high ≥ 0.95, medium ≥ 0.80 precision); the prior
 * weight is 10 pseudo-counts (4 let a 4-of-4 cell claim 0.96 under LOFO; see docs/evaluation.md).
 */
export function fitCalibration(outcomes: Array<[string, boolean]>, thresholds: { high: number; medium: number } = { high: 0.95, medium: 0.8 }): Calibration {
  const cells: Calibration['cells'] = {};
  const total = { n: 0, right: 0 };
  for (const [cell, right] of outcomes) {
    const c = (cells[cell] ??= { n: 0, right: 0 });
    c.n++;
    total.n++;
    if (right) {
      c.right++;
      total.right++;
    }
  }
  return { cells, total, prior_weight: 10, ...thresholds };
}
