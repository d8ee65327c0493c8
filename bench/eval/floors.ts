/**
 * Per-field quality floors of the pages suite and their history (docs/evaluation.md, "Guarding the
 * figures"). bench/eval/floors-history.json holds, per field, every floor ever set: the floor, the
 * LOFO F1 measured when it was set, the commit measured (the floor itself lands in the commit after
 * it) and the date. The last entry of a field is its floor now; test/unit/eval/floors.test.ts
 * fails when a field's LOFO F1 falls under it. `npm run eval:floors` (bench/eval/write-floors.ts)
 * measures and appends entries; floors only rise unless a lower one is asked for by name.
 */
import fs from 'node:fs';
import path from 'node:path';

/** One floor as set: F1 floor, the F1 measured then, the commit measured and the day (YYYY-MM-DD). */
export interface FloorEntry {
  floor: number;
  measured: number;
  commit: string;
  date: string;
  /** Why it was set (free text, optional). */
  note?: string;
}

/** The history file's shape: per field of the pages suite, its floors oldest first. */
export interface FloorHistory {
  pages_lofo_f1: Record<string, FloorEntry[]>;
}

/** Where the history is kept. */
export const FLOOR_HISTORY = path.resolve(__dirname, 'floors-history.json');

/**
 * How far under the measured F1 a floor is set: 0.02, or two values' worth when a field has few
 * labelled values (one more wrong GTIN of 10 costs 0.1 F1), so that one page's change does not fail CI.
 */
export const FLOOR_MARGIN: Record<string, number> = { gtin: 0.1, mpn: 0.06 };
const DEFAULT_MARGIN = 0.02;

/** Reads the history file (an empty history when absent). @throws Error when the file is not valid JSON of that shape. */
export function readFloorHistory(file = FLOOR_HISTORY): FloorHistory {
  if (!fs.existsSync(file)) return { pages_lofo_f1: {} };
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as FloorHistory;
  if (!parsed || typeof parsed.pages_lofo_f1 !== 'object') throw new Error(`${file}: no pages_lofo_f1 object`);
  return parsed;
}

/** Each field's floor now (its last entry). */
export function currentFloors(history: FloorHistory): Record<string, number> {
  return Object.fromEntries(
    Object.entries(history.pages_lofo_f1)
      .filter(([, entries]) => entries.length > 0)
      .map(([field, entries]) => [field, entries[entries.length - 1].floor]),
  );
}

/** The floor a measured F1 sets: the measure less the field's margin, rounded down to 0.01. */
export function floorFor(field: string, measured: number): number {
  return Math.max(0, Math.floor((measured - (FLOOR_MARGIN[field] ?? DEFAULT_MARGIN)) * 100 + 1e-9) / 100);
}

/**
 * The entries a measurement adds: a field without a floor gets one; a field whose floor the
 * measurement would raise gets the higher one; a field named in `lower` gets the floor the
 * measurement sets even when lower (a deliberate trade, to be explained in the commit). Other
 * fields keep theirs. Returns the new entries by field (the history is not changed).
 */
export function proposeFloors(
  history: FloorHistory,
  measured: Record<string, number>,
  at: { commit: string; date: string; note?: string },
  lower: ReadonlySet<string> = new Set(),
): Record<string, FloorEntry> {
  const now = currentFloors(history);
  const out: Record<string, FloorEntry> = {};
  for (const [field, f1] of Object.entries(measured)) {
    const floor = floorFor(field, f1);
    if (now[field] === undefined || floor > now[field] || (lower.has(field) && floor !== now[field]))
      out[field] = { floor, measured: f1, commit: at.commit, date: at.date, ...(at.note ? { note: at.note } : {}) };
  }
  return out;
}

/** The history with `entries` appended to their fields. */
export function withEntries(history: FloorHistory, entries: Record<string, FloorEntry>): FloorHistory {
  const fields = { ...history.pages_lofo_f1 };
  for (const [field, e] of Object.entries(entries)) fields[field] = [...(fields[field] ?? []), e];
  return { ...history, pages_lofo_f1: fields };
}
