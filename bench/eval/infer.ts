/**
 * The inference suite (`npm run eval -- infer`): schema inference on real files
 * against gold schemas written by hand (bench/eval/infer-gold/*.json). Reported per file and
 * overall: column-type accuracy, enum detection F1, unit detection (UN/CEFACT / ISO 4217 code)
 * F1, unique-id and product-id choice, taxonomy agreement with the file's own category column,
 * and how consistently titles alone map to the Google product taxonomy within each of the
 * file's own categories.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inferSchemaFromFile, type Inference } from '../../src/services/sheets/infer';
import { normalizeHeaders, sniffTable, tableRows } from '../../src/services/sheets/table-file';
import { googleTaxonomyCache, taxonomyFromTitles, type GoogleTaxonomyCache } from '../../src/services/sheets/taxonomy';
import { SHARED_DATA } from '../../test/helpers/data';
import { options, table } from './files';
import { inferCases, readGolds, type InferCase, type InferGold } from './infer-files';
import { prf, type FieldCounts } from './metrics';

/** Where the gold schemas live. */
export const GOLD_DIR = path.join(__dirname, 'infer-gold');

/** Scores of one file. */
export interface InferScore {
  name: string;
  variant: string;
  rows: number;
  types: { correct: number; total: number; wrong: string[] };
  enums: FieldCounts & { wrong: string[] };
  units: FieldCounts & { wrong: string[] };
  unique_id_ok: boolean;
  product_id_ok: boolean;
  predicted: { unique_id_field: string | null; product_id_field: string | null };
  /** Share of the gold category column's distinct values whose path is in the suggested taxonomy (and levels equal); null without a category column. */
  taxonomy_agreement: number | null;
  ms: number;
}

/** Node paths of a suggested taxonomy, joined by ` > `. */
function nodePaths(taxonomy: NonNullable<Inference['taxonomy']>['taxonomy']): Set<string> {
  const out = new Set<string>();
  const pathOf = (id: string): string[] => {
    const n = taxonomy.nodes[id];
    return n ? [...(n.parent ? pathOf(n.parent) : []), n.name] : [];
  };
  for (const id of Object.keys(taxonomy.nodes)) out.add(pathOf(id).join(' > '));
  return out;
}

/** Scores one inference against its gold; `categoryValues` are the gold category column's cells (for taxonomy agreement). */
export function scoreInference(gold: InferGold, variant: string, r: Inference, ms: number, categoryValues: string[]): InferScore {
  const types = { correct: 0, total: 0, wrong: [] as string[] };
  const enums = { tp: 0, fp: 0, fn: 0, wrong: [] as string[] };
  const units = { tp: 0, fp: 0, fn: 0, wrong: [] as string[] };
  for (const [name, g] of Object.entries(gold.columns)) {
    const f = r.fields.find((x) => x.name === name);
    if (!f) throw new Error(`${gold.name}: the inference has no column ${name}`);
    if (g.type !== null) {
      types.total++;
      const ok = (Array.isArray(g.type) ? g.type : [g.type]).includes(f.type);
      if (ok) types.correct++;
      else types.wrong.push(`${name}: ${f.type} (gold ${String(g.type)})`);
    }
    const isEnum = f.enum !== null || f.items_enum !== null;
    if (isEnum && g.enum) enums.tp++;
    else if (isEnum) {
      enums.fp++;
      enums.wrong.push(`${name}: enum (gold none)`);
    } else if (g.enum) {
      enums.fn++;
      enums.wrong.push(`${name}: no enum (gold enum)`);
    }
    const code = f.unit?.code ?? null;
    if (g.unit && code === g.unit) units.tp++;
    else {
      if (code) units.fp++;
      if (g.unit) units.fn++;
      if (code || g.unit) units.wrong.push(`${name}: ${code ?? 'none'} (gold ${g.unit ?? 'none'})`);
    }
  }
  let taxonomy: number | null = null;
  if (gold.taxonomy) {
    const t = r.taxonomy;
    const cat = r.fields.find((f) => f.name === gold.taxonomy?.column);
    if (!t || t.source !== 'column' || !cat || t.taxonomy.hierarchy_levels.length !== gold.taxonomy.levels) taxonomy = 0;
    else {
      const paths = nodePaths(t.taxonomy);
      const sep = cat.path_separator ?? '';
      const all = [...new Set(categoryValues.filter((v) => v.trim() !== ''))];
      const hits = all.filter((v) =>
        paths.has(
          (sep ? v.split(sep) : [v])
            .map((x) => x.trim())
            .filter(Boolean)
            .join(' > '),
        ),
      ).length;
      taxonomy = all.length ? hits / all.length : 0;
    }
  }
  const uniqueId = r.structure.unique_id_field;
  const productId = r.structure.product_id_field;
  return {
    name: gold.name,
    variant,
    rows: r.total_rows,
    types,
    enums,
    units,
    unique_id_ok: gold.unique_id_field.includes(uniqueId ?? ''),
    product_id_ok: gold.product_id_field.includes(productId),
    predicted: { unique_id_field: uniqueId, product_id_field: productId },
    taxonomy_agreement: taxonomy,
    ms,
  };
}

/** The first 10,000 data rows of a case's file with its normalized headers. */
async function readRows(c: InferCase): Promise<{ headers: string[]; rows: string[][] }> {
  const dialect = await sniffTable(c.file, c.fileName);
  const rows: string[][] = [];
  let headers: string[] | null = null;
  for await (const row of tableRows(c.file, dialect)) {
    if (!headers) headers = normalizeHeaders(row);
    else rows.push(row);
    if (rows.length >= 10_000) break;
  }
  return { headers: headers ?? [], rows };
}

/**
 * Title → Google product taxonomy consistency with the file's own categories: the titles of the
 * first 2,000 rows are classified without their category; per own category, the share of its
 * classified rows in the category's most common Google top-level branch (micro-averaged).
 * Null when the file has no category or title column, or no Google taxonomy is configured.
 */
export async function titleConsistency(c: InferCase, r: Inference, google: GoogleTaxonomyCache): Promise<{ consistency: number; mapped: number } | null> {
  const cat = c.gold.taxonomy?.column;
  const title = r.fields.find((f) => f.role === 'title')?.name;
  if (!cat || !title || !google.get()) return null;
  const { headers, rows: all } = await readRows(c);
  const rows = all.slice(0, 2000);
  const ci = headers.indexOf(cat);
  const ti = headers.indexOf(title);
  const description = r.fields.find((f) => f.role === 'description')?.name;
  const di = description ? headers.indexOf(description) : -1;
  // As the service does (infer.ts suggestTaxonomy): titles, with the description as weaker text.
  const s = taxonomyFromTitles(
    rows.map((x) => x[ti] ?? ''),
    rows.map((x) => (di >= 0 ? (x[di] ?? '').replace(/<[^>]*>/g, ' ') : '')),
    google.get(),
  );
  if (!s) return { consistency: 0, mapped: 0 };
  const byCat = new Map<string, Map<string, number>>();
  s.row_nodes.forEach((node, i) => {
    if (!node) return;
    let root = node;
    while (s.taxonomy.nodes[root]?.parent) root = s.taxonomy.nodes[root].parent ?? root;
    const own = rows[i][ci] ?? '';
    let m = byCat.get(own);
    if (!m) byCat.set(own, (m = new Map()));
    m.set(root, (m.get(root) ?? 0) + 1);
  });
  let agree = 0;
  let mapped = 0;
  for (const m of byCat.values()) {
    const counts = [...m.values()];
    agree += Math.max(...counts);
    mapped += counts.reduce((a, b) => a + b, 0);
  }
  return { consistency: mapped ? agree / mapped : 0, mapped: mapped / Math.max(1, rows.length) };
}

/** Totals over files. */
export function summarize(scores: InferScore[]): Record<string, number> {
  const sum = (f: (s: InferScore) => number) => scores.reduce((a, s) => a + f(s), 0);
  const enums = { tp: sum((s) => s.enums.tp), fp: sum((s) => s.enums.fp), fn: sum((s) => s.enums.fn) };
  const units = { tp: sum((s) => s.units.tp), fp: sum((s) => s.units.fp), fn: sum((s) => s.units.fn) };
  const tax = scores.filter((s) => s.taxonomy_agreement !== null);
  const r = (x: number) => Number(x.toFixed(4));
  return {
    files: scores.length,
    columns: sum((s) => s.types.total),
    type_accuracy: r(
      sum((s) => s.types.correct) /
        Math.max(
          1,
          sum((s) => s.types.total),
        ),
    ),
    enum_precision: prf(enums).precision,
    enum_recall: prf(enums).recall,
    enum_f1: prf(enums).f1,
    unit_f1: prf(units).f1,
    unit_recall: prf(units).recall,
    unique_id_correct: r(sum((s) => Number(s.unique_id_ok)) / Math.max(1, scores.length)),
    product_id_correct: r(sum((s) => Number(s.product_id_ok)) / Math.max(1, scores.length)),
    taxonomy_agreement: r(tax.reduce((a, s) => a + (s.taxonomy_agreement ?? 0), 0) / Math.max(1, tax.length)),
  };
}

/** Runs inference and scoring on `cases`. */
export async function evaluateCases(
  cases: InferCase[],
  google: GoogleTaxonomyCache,
): Promise<{ scores: InferScore[]; consistency: Array<{ name: string; consistency: number; mapped: number }> }> {
  const scores: InferScore[] = [];
  const consistency: Array<{ name: string; consistency: number; mapped: number }> = [];
  for (const c of cases) {
    const t = performance.now();
    const r = await inferSchemaFromFile({ path: c.file, name: c.fileName }, { maxSampleRows: 20, google, generateTaxonomy: true });
    const ms = performance.now() - t;
    let categoryValues: string[] = [];
    if (c.gold.taxonomy) {
      const { headers, rows } = await readRows(c);
      const i = headers.indexOf(c.gold.taxonomy.column);
      categoryValues = rows.map((x) => x[i] ?? '');
    }
    scores.push(scoreInference(c.gold, c.variant, r, ms, categoryValues));
    if (c.variant === 'csv') {
      const k = await titleConsistency(c, r, google);
      if (k) consistency.push({ name: c.gold.name, ...k });
    }
  }
  return { scores, consistency };
}

/**
 * `npm run eval -- infer [--gold <dir>] [--only <name>]`: every gold's files (CSV as given,
 * generated CSV and XLSX); prints a table per file and the details of every miss; returns the
 * overall figures.
 */
export async function runInferSuite(argv: string[]): Promise<Record<string, unknown>> {
  const goldDir = options(argv, '--gold')[0] ?? GOLD_DIR;
  const only = new Set(options(argv, '--only'));
  const golds = readGolds(goldDir).filter((g) => only.size === 0 || only.has(g.name));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-infer-'));
  try {
    const google = googleTaxonomyCache(path.join(SHARED_DATA, 'taxonomy', 'google', 'taxonomy-with-ids.en-US.txt'));
    const { scores, consistency } = await evaluateCases(await inferCases(golds, work), google);
    console.log(
      table(
        ['file', 'variant', 'rows', 'types', 'enum F1', 'units', 'unique id', 'product id', 'taxonomy', 'ms'],
        scores.map((s) => [
          s.name,
          s.variant,
          s.rows,
          `${s.types.correct}/${s.types.total}`,
          prf(s.enums).f1,
          `${s.units.tp}/${s.units.tp + s.units.fn} (+${s.units.fp})`,
          `${s.unique_id_ok ? 'ok' : 'WRONG'} ${s.predicted.unique_id_field ?? '-'}`,
          `${s.product_id_ok ? 'ok' : 'WRONG'} ${s.predicted.product_id_field ?? '-'}`,
          s.taxonomy_agreement === null ? '-' : s.taxonomy_agreement.toFixed(2),
          Math.round(s.ms),
        ]),
      ),
    );
    for (const s of scores) {
      const misses = [...s.types.wrong, ...s.enums.wrong, ...s.units.wrong];
      if (misses.length) console.log(`\n${s.name} (${s.variant}) misses:\n  ${misses.join('\n  ')}`);
    }
    if (consistency.length) {
      console.log('\ntitles → Google product taxonomy, consistency within the file’s own categories (top-level branch):');
      console.log(
        table(
          ['file', 'consistency', 'titles mapped'],
          consistency.map((k) => [k.name, k.consistency.toFixed(3), k.mapped.toFixed(3)]),
        ),
      );
    }
    const k = consistency.reduce((a, c) => a + c.consistency, 0) / Math.max(1, consistency.length);
    return { suite: 'infer', ...summarize(scores), title_google_consistency: Number(k.toFixed(4)) };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
