/**
 * Label errata of the pages suite (docs/evaluation.md, "Wrong values at high confidence"): labels
 * of the labelled dev pages that the page itself contradicts, each with the page's own words
 * (bench/eval/label-errata.json). The figures are counted against the labels as published, and
 * a second time with each erratum's label replaced by the value its page states
 * ({@link withErrata}); the first count leads, and the suite prints both. An erratum also explains
 * a wrong value returned at `high` confidence, only the one value the page states, on that page
 * and field, so any other wrong value there still counts.
 */
import fs from 'node:fs';
import path from 'node:path';

/** One label the page contradicts: the page id, the field, the label as published, the value the page states, why, and verbatim quotes of the page. */
export interface LabelErratum {
  page: string;
  field: string;
  /** The field's label as published (empty: none). */
  label: string[];
  /** The value the page states, as the engine returns it (a price as a plain decimal). */
  page_value: string;
  /** Strings written verbatim (whitespace collapsed) in the page's HTML. */
  evidence: string[];
  why: string;
}

/** Where the errata are kept. */
export const ERRATA_FILE = path.resolve(__dirname, 'label-errata.json');

/** Reads the errata (none when the file is absent). @throws Error when the file is not JSON with an `errata` list. */
export function readErrata(file = ERRATA_FILE): LabelErratum[] {
  if (!fs.existsSync(file)) return [];
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { errata?: LabelErratum[] };
  if (!Array.isArray(parsed.errata)) throw new Error(`${file}: no errata list`);
  return parsed.errata;
}

/** Whether a returned value is the value an erratum says the page states, for that page (full id) and field. */
export function isErratum(errata: LabelErratum[], page: string, field: string, value: unknown): boolean {
  return errata.some((e) => e.page === page && e.field === field && String(value) === e.page_value);
}

/**
 * A page's labels with its errata applied: each field an erratum names (page by full id) is
 * labelled with the value the page states (`[page_value]`) instead of its published label; the
 * other fields, and pages without errata, are returned as published. The published object is
 * not changed.
 */
export function withErrata(errata: LabelErratum[], page: string, labels: Record<string, unknown>): Record<string, unknown> {
  const own = errata.filter((e) => e.page === page);
  if (own.length === 0) return labels;
  return { ...labels, ...Object.fromEntries(own.map((e) => [e.field, [e.page_value]])) };
}
