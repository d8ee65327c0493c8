/** Counts of one field under the upstream benchmark rules. */
export interface FieldCounts {
  tp: number;
  fp: number;
  fn: number;
}

/** Precision, recall and F1 as fractions (0 when undefined), rounded to 4 decimals. */
export function prf(c: FieldCounts): { precision: number; recall: number; f1: number } {
  const precision = c.tp + c.fp > 0 ? c.tp / (c.tp + c.fp) : 0;
  const recall = c.tp + c.fn > 0 ? c.tp / (c.tp + c.fn) : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  const r = (x: number) => Number(x.toFixed(4));
  return { precision: r(precision), recall: r(recall), f1: r(f1) };
}

/**
 * Adds one page's outcome (zyte product-extraction-benchmark README rules): a prediction in
 * the acceptable set is a TP; a wrong prediction is an FP, and also an FN when the page has a
 * value; no prediction is an FN when the page has a value.
 */
export function count(c: FieldCounts, predicted: boolean, correct: boolean, labelled: boolean): void {
  if (predicted && correct) c.tp++;
  else if (predicted) {
    c.fp++;
    if (labelled) c.fn++;
  } else if (labelled) c.fn++;
}

/** A decimal string or number in canonical form (`"30.00"` → `"30"`), or null when not numeric. */
export function canonicalDecimal(v: unknown): string | null {
  if (v === null || v === undefined || v === '') return null;
  const s = String(v).trim();
  if (!/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(s)) return null;
  const n = /[eE]/.test(s) ? String(Number(s)) : s;
  const [i, f = ''] = n.split('.');
  const frac = f.replace(/0+$/, '');
  const int = i.replace(/^(-?)0+(?=\d)/, '$1');
  return frac ? `${int}.${frac}` : int;
}
