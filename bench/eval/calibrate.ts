/**
 * Out-of-sample confidence calibration for the pages suite (docs/evaluation.md, "Calibrated
 * confidence"). A calibration (src/enrichment/extract/calibration.ts) counts, per cell, how many
 * returned values were right. Counted on the predictions of an engine whose rules were kept
 * because of the very page being counted, those counts are optimistic; here every count comes
 * from a page predicted with the rules fitted without that page's site family:
 * - the shipped table: each family's values, predicted with the rules fitted on the other
 *   families, pooled over every family ({@link outOfSampleCalibration} with nothing held out);
 * - the table a held-out family is scored with (nested, so the figure is never measured on the
 *   table's own training pages): the same procedure run on the other families only, each of
 *   their values predicted with the rules fitted without both its own and the held-out family.
 */
import { fitCalibration, type Calibration } from '../../src/enrichment/extract/calibration';
import type { RuleId } from '../../src/enrichment/extract/rules';

/** One returned labelled value: its calibration cell and whether it was right. */
export type CellOutcome = [cell: string, right: boolean];

/** A labelled page as the fit sees it: its id and site family. */
export interface FamilyPage {
  id: string;
  family: string;
}

/**
 * What the fit needs from the suite: the rules left out when the given families are held out
 * (bench/eval/lofo.ts rulesOffFor), and the cell outcomes of one page predicted with those rules
 * left out (the cells do not depend on the calibration, only on the readings and the vote).
 */
export interface CalibrationSource {
  rulesOff(held: ReadonlySet<string>): Set<RuleId>;
  cellsOf(pageId: string, off: Set<RuleId>): Promise<CellOutcome[]>;
}

/**
 * Memoises `cellsOf` per page and set of rules left out: the nested fit asks for each family
 * under every other held-out family, and most of those leave out the same rules.
 */
export function memoisedCells(cellsOf: CalibrationSource['cellsOf']): CalibrationSource['cellsOf'] {
  const memo = new Map<string, Promise<CellOutcome[]>>();
  return (pageId, off) => {
    const key = `${pageId} ${[...off].sort().join(',')}`;
    let cells = memo.get(key);
    if (!cells) memo.set(key, (cells = cellsOf(pageId, off)));
    return cells;
  };
}

/**
 * The pooled out-of-sample cell outcomes of `pages` without the families in `without`: each
 * remaining family's pages predicted with the rules fitted without it and without `without`.
 */
export async function outOfSampleCells(pages: FamilyPage[], source: CalibrationSource, without: ReadonlySet<string> = new Set()): Promise<CellOutcome[]> {
  const families = [...new Set(pages.map((p) => p.family))].filter((f) => !without.has(f)).sort();
  const out: CellOutcome[] = [];
  for (const family of families) {
    const off = source.rulesOff(new Set([...without, family]));
    for (const page of pages.filter((p) => p.family === family)) out.push(...(await source.cellsOf(page.id, off)));
  }
  return out;
}

/** {@link outOfSampleCells} fitted into a calibration (src/enrichment/extract/calibration.ts fitCalibration). */
export async function outOfSampleCalibration(pages: FamilyPage[], source: CalibrationSource, without: ReadonlySet<string> = new Set()): Promise<Calibration> {
  return fitCalibration(await outOfSampleCells(pages, source, without));
}
