/**
 * `npm run eval -- text --data <folder> [--examples <folder>] [--split-dev] [--limit N] [--examples-limit N]`:
 * slot-level scoring of deterministic text extraction on the wdc-pave / oa-mine / ae-110k
 * layouts (evaluation.md, "text"; scoring re-implemented from wdc-pave/SOURCE.md).
 *
 * Layout: every `*.jsonl` under `--data` is a file of records, either
 * `{input, category, target_scores}` (title only) or `{id, input_title, input_description,
 * category, target_scores}`; `target_scores[attr]` maps acceptable values to scores, or holds
 * `n/a`. A record's slots are the attributes it lists: an attribute of the category that a
 * record does not list is not scored, as in the authors' reference scorer (ExtractGPT
 * `pieutils/evaluation.py`, `calculate_evaluation_metrics_multiple_attributes`, which skips a
 * record whose `target_scores` lacks the attribute); oa-mine lists only the attributes present
 * in the title, ae-110k some `n/a`, wdc-pave every attribute. The stricter reading, every
 * schema attribute a slot and an unlisted one `n/a`, is reported too (`unlisted_as_na`).
 * The output schema per category is taken from a `*.csv` with `Category` and `Attribute`
 * columns under `--data` when present (descriptions from `Human_Description`), else from the
 * attributes seen in the records.
 *
 * Examples (the user's existing catalog): `--examples <folder>` of the same layout supplies
 * `sample_values` (≤ 10 most frequent per attribute) and known values. `--split-dev` (or
 * `--examples` equal to `--data`) splits every data file by record index parity: even
 * indices are examples, odd indices are scored. Example records (text and values) train the
 * extractor's learned layer (`trainTextModel`); only the input text of scored records
 * reaches the extractor. `--limit N` scores only the first N records of each file and
 * `--examples-limit N` keeps only the first N example records of each file (quick runs: the
 * learned layer's training time grows with the examples, not with the scored records). Files
 * whose gold values are mostly not substrings of the text (e.g. `..._normalized`) are
 * reported under `normalized`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { buildProfiles, extractWithModel, extractWithProfiles, trainGroupedTextModel, withCorpus } from '../../src/enrichment/text';
import { brandAtStart, brandKnowledge, isBrandField, knownBrand, type KnownBrands } from '../../src/enrichment/text/brand';
import type { OutputField } from '../../src/enrichment/types';

/**
 * One labelled record, layout-independent. `gold[attr]` = acceptable values, or null for n/a;
 * an attribute the record does not list is absent from `gold` (not a slot of this record).
 */
export interface TextRecord {
  category: string;
  text: string;
  gold: Record<string, string[] | null>;
}

/** Slot outcome (wdc-pave/SOURCE.md): NN ignored, NV, VN, VC, VW. */
export type SlotOutcome = 'NN' | 'NV' | 'VN' | 'VC' | 'VW';

/** Counts of slot outcomes. */
export type SlotCounts = Record<SlotOutcome, number>;

/** Micro precision/recall/F1 (fractions 0–1). */
export interface Prf {
  precision: number;
  recall: number;
  f1: number;
}

/** Exact comparison (the benchmark's rule) or lenient (case and whitespace ignored). */
export type MatchMode = 'exact' | 'lenient';

/** Lenient key: lower case, whitespace collapsed and trimmed. */
function lenientKey(v: string): string {
  return v.toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * Scores one slot. `gold` = acceptable values or null (n/a); `predicted` = value or null.
 * VC when the prediction equals one of the gold values (exact string, or lenient key).
 */
export function scoreSlot(gold: string[] | null, predicted: string | null, mode: MatchMode): SlotOutcome {
  if (gold === null) return predicted === null ? 'NN' : 'NV';
  if (predicted === null) return 'VN';
  const hit = mode === 'exact' ? gold.includes(predicted) : gold.some((g) => lenientKey(g) === lenientKey(predicted));
  return hit ? 'VC' : 'VW';
}

/** Precision = VC/(NV+VC+VW), recall = VC/(VN+VC+VW), F1 = harmonic mean (0 when undefined). */
export function prf(c: SlotCounts): Prf {
  const precision = c.VC / Math.max(c.NV + c.VC + c.VW, 1);
  const recall = c.VC / Math.max(c.VN + c.VC + c.VW, 1);
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

function emptyCounts(): SlotCounts {
  return { NN: 0, NV: 0, VN: 0, VC: 0, VW: 0 };
}

function add(into: SlotCounts, from: SlotCounts): void {
  for (const k of Object.keys(into) as SlotOutcome[]) into[k] += from[k];
}

/** Every `*.jsonl` file under `dir`, sorted. */
function findFiles(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...findFiles(full, ext));
    else if (name.endsWith(ext)) out.push(full);
  }
  return out;
}

/** Parses one JSON line of either layout into a {@link TextRecord}. */
export function parseRecord(line: string): TextRecord {
  const raw = JSON.parse(line) as Record<string, unknown>;
  const title = String(raw.input ?? raw.input_title ?? '');
  const description = typeof raw.input_description === 'string' ? raw.input_description.trim() : '';
  const gold: Record<string, string[] | null> = {};
  for (const [attr, values] of Object.entries((raw.target_scores ?? {}) as Record<string, Record<string, unknown>>)) {
    const keys = Object.keys(values).filter((k) => k !== 'n/a');
    gold[attr] = keys.length > 0 ? keys : null;
  }
  return { category: String(raw.category ?? ''), text: description ? `${title}\n${description}` : title, gold };
}

/** Records of a JSONL file. */
function loadRecords(file: string): TextRecord[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map(parseRecord);
}

/** Minimal RFC 4180 CSV parser (quoted fields, doubled quotes, newlines inside quotes). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i += 1;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell.length > 0 || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/** Category → attribute → description, from any CSV under `dir` with Category/Attribute columns. */
function loadDescriptions(dir: string): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const file of findFiles(dir, '.csv')) {
    const [header, ...rows] = parseCsv(readFileSync(file, 'utf8'));
    if (!header) continue;
    const cat = header.indexOf('Category');
    const attr = header.indexOf('Attribute');
    const desc = header.indexOf('Human_Description');
    if (cat < 0 || attr < 0) continue;
    for (const r of rows) {
      if (!r[cat] || !r[attr]) continue;
      if (!out.has(r[cat]!)) out.set(r[cat]!, new Map());
      out.get(r[cat]!)!.set(r[attr]!, desc >= 0 && r[desc] ? r[desc]! : r[attr]!);
    }
  }
  return out;
}

/** Known values per category and attribute from example records, one per record (duplicates kept: frequency). */
function knownValuesOf(examples: TextRecord[]): Map<string, Record<string, string[]>> {
  const out = new Map<string, Record<string, string[]>>();
  for (const r of examples) {
    const perCat = out.get(r.category) ?? {};
    out.set(r.category, perCat);
    // A catalog holds one value per item: the first acceptable surface form.
    for (const [attr, values] of Object.entries(r.gold)) if (values) (perCat[attr] ??= []).push(values[0]!);
  }
  return out;
}

/** The ≤ 10 most frequent distinct values (ties: first seen). */
function topValues(values: string[]): string[] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([v]) => v);
}

/** Output schema of one category (string fields), with sample values from the examples. */
function schemaOf(
  category: string,
  records: TextRecord[],
  descriptions: Map<string, Map<string, string>>,
  known: Record<string, string[]> | undefined,
): OutputField[] {
  const described = descriptions.get(category);
  const names = described ? [...described.keys()] : [...new Set(records.filter((r) => r.category === category).flatMap((r) => Object.keys(r.gold)))];
  return names.map((name) => {
    const field: OutputField = { name, type: 'string', description: described?.get(name) ?? name };
    const samples = known?.[name];
    if (samples && samples.length > 0) field.sample_values = topValues(samples);
    return field;
  });
}

/**
 * Scores of one run over a set of records: `exact`, `lenient` and `perAttribute` (keyed
 * `<category> / <attribute>`) over the listed slots; `unlistedAsNa` exact over every schema
 * slot, an unlisted attribute as n/a; `brand` exact over the listed slots of brand fields
 * (`isBrandField` of src/enrichment/text/brand.ts); `brandGuesses` the brands read but not
 * kept by the brand rule (see {@link brandRule}) and how many of them were right.
 */
export interface RunResult {
  exact: SlotCounts;
  lenient: SlotCounts;
  unlistedAsNa: SlotCounts;
  perAttribute: Map<string, SlotCounts>;
  brand: SlotCounts;
  brandGuesses: { total: number; right: number };
}

/**
 * Runs the extractor on `data` (input text only) and scores every listed slot, and every
 * schema slot with an unlisted attribute as n/a (see {@link tallyRecord}).
 */
function run(data: TextRecord[], examples: TextRecord[], descriptions: Map<string, Map<string, string>>): RunResult {
  const known = knownValuesOf(examples);
  const result = emptyRun();
  const categories = [...new Set(data.map((r) => r.category))];
  const schemas = new Map(categories.map((c) => [c, schemaOf(c, [...data, ...examples], descriptions, known.get(c))]));
  // The examples are one catalog: one model learns from all of it, each category being a
  // group with its own fields; as in the service (src/enrichment/learned-text.ts), it is
  // trained on the examples alone and then reads the phrase statistics of every text it will
  // see (the scored records' input texts are unlabelled text, as a job's items are); without
  // examples, rules only.
  const groups = new Map(categories.filter((c) => known.has(c)).map((c) => [c, { fields: schemas.get(c)!, knownValues: known.get(c) }]));
  const model =
    groups.size > 0
      ? withCorpus(
          trainGroupedTextModel(
            groups,
            examples.filter((r) => groups.has(r.category)).map((r) => ({ text: r.text, values: r.gold, group: r.category })),
          ),
          data.map((r) => r.text),
        )
      : null;
  for (const category of categories) {
    const schema = schemas.get(category)!;
    const brands = new Set(schema.filter(isBrandField).map((f) => f.name));
    const knownBrands = brandKnowledge(schema, {}, known.get(category) ?? {});
    const extract =
      model !== null && groups.has(category)
        ? (text: string) => extractWithModel(text, model, category)
        : (
            (profiles) => (text: string) =>
              extractWithProfiles(text, profiles)
          )(buildProfiles(schema, known.get(category) ?? {}));
    for (const record of data.filter((r) => r.category === category)) {
      const predicted = new Map(extract(record.text).map((e) => [e.field, String(e.value)]));
      for (const guess of brandRule(predicted, record.text.split('\n')[0]!, knownBrands)) {
        result.brandGuesses.total += 1;
        if (scoreSlot(record.gold[guess.field] ?? null, guess.value, 'exact') === 'VC') result.brandGuesses.right += 1;
      }
      tallyRecord(
        result,
        record,
        predicted,
        schema.map((f) => f.name),
        brands,
      );
    }
  }
  return result;
}

/**
 * The engine's rule for brands read from text (src/enrichment/engine.ts readItemText,
 * docs/enrich-options.md "Brands read from the item's text"), applied to one record's
 * `predicted` values in place: per brand field of `known`, the longest known brand the title
 * starts with wins; a read brand that is known takes its known spelling; any other is removed
 * (a guess, which the engine turns into a low-confidence candidate).
 * @returns the removed guesses
 */
function brandRule(predicted: Map<string, string>, title: string, known: Map<string, KnownBrands>): Array<{ field: string; value: string }> {
  const guesses: Array<{ field: string; value: string }> = [];
  for (const [field, brands] of known) {
    const at = brandAtStart(title, brands);
    const read = predicted.get(field);
    if (at) predicted.set(field, at.value);
    else if (read !== undefined) {
      const spelled = knownBrand(read, brands);
      if (spelled !== null) predicted.set(field, spelled);
      else {
        predicted.delete(field);
        guesses.push({ field, value: read });
      }
    }
  }
  return guesses;
}

/**
 * Adds one record's slots to `into`: every name in `fields` (the category's schema) is scored
 * against `predicted` (field → value); a field the record does not list counts only in
 * `unlistedAsNa` (as n/a), as the reference scorer skips it (see the module comment). A listed
 * slot of a field in `brands` also counts in `into.brand`.
 */
export function tallyRecord(into: RunResult, record: TextRecord, predicted: Map<string, string>, fields: string[], brands?: Set<string>): void {
  for (const name of fields) {
    const gold = record.gold[name] ?? null;
    const p = predicted.get(name) ?? null;
    const exact = scoreSlot(gold, p, 'exact');
    into.unlistedAsNa[exact] += 1;
    if (!(name in record.gold)) continue;
    const key = `${record.category} / ${name}`;
    const per = into.perAttribute.get(key) ?? emptyCounts();
    into.perAttribute.set(key, per);
    into.exact[exact] += 1;
    per[exact] += 1;
    if (brands?.has(name)) into.brand[exact] += 1;
    into.lenient[scoreSlot(gold, p, 'lenient')] += 1;
  }
}

/** True when most gold values are written in the text (an "as written" file, not a normalized one). */
function isAsWritten(records: TextRecord[]): boolean {
  let total = 0;
  let grounded = 0;
  for (const r of records) {
    for (const values of Object.values(r.gold)) {
      if (!values) continue;
      total += 1;
      if (values.some((v) => r.text.includes(v))) grounded += 1;
    }
  }
  return total === 0 || grounded / total >= 0.9;
}

/** Value of `--name <value>` in argv, or undefined. */
function option(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

const pct = (x: number): string => (100 * x).toFixed(1).padStart(5);

/** Prints the per-attribute table of one run (worst absolute losses first). */
function printTable(title: string, r: RunResult): void {
  console.log(`\n${title}`);
  console.log(`${'attribute'.padEnd(52)}    VC    VW    NV    VN     P     R    F1`);
  const rows = [...r.perAttribute.entries()].sort((a, b) => b[1].VW + b[1].NV + b[1].VN - (a[1].VW + a[1].NV + a[1].VN));
  for (const [key, c] of rows) {
    const s = prf(c);
    console.log(
      `${key.slice(0, 52).padEnd(52)} ${[c.VC, c.VW, c.NV, c.VN].map((n) => String(n).padStart(5)).join(' ')} ${pct(s.precision)} ${pct(s.recall)} ${pct(s.f1)}`,
    );
  }
  const e = prf(r.exact);
  const l = prf(r.lenient);
  const u = prf(r.unlistedAsNa);
  const b = prf(r.brand);
  console.log(
    `exact   P ${pct(e.precision)} R ${pct(e.recall)} F1 ${pct(e.f1)} | lenient P ${pct(l.precision)} R ${pct(l.recall)} F1 ${pct(l.f1)} | unlisted as n/a: exact F1 ${pct(u.f1)}`,
  );
  console.log(
    `brand fields: exact P ${pct(b.precision)} R ${pct(b.recall)} F1 ${pct(b.f1)} (${r.brand.VC} right, ${r.brand.VW + r.brand.NV} wrong, ${r.brand.VN} missing; ${r.brandGuesses.total} guesses not kept, ${r.brandGuesses.right} of them right)`,
  );
}

/**
 * Runs the text suite. argv: `--data <folder>` (required), `--examples <folder>`,
 * `--split-dev`, `--limit <n>` (score only the first n records of each file, for quick
 * runs), `--examples-limit <n>` (use only the first n example records of each file),
 * `--quiet` (no per-attribute tables). Prints tables and returns
 * `{suite: "text", records, examples, exact, lenient, unlisted_as_na, brand, without_examples?,
 * normalized?, files}` with precision/recall/F1 as fractions (`unlisted_as_na`: exact, every
 * schema attribute a slot; `brand`: exact over the brand fields' listed slots, with their slot
 * counts). Throws when `--data` is missing or holds no JSONL.
 */
export async function runTextSuite(argv: string[]): Promise<Record<string, unknown>> {
  const dataDir = option(argv, '--data');
  if (!dataDir) throw new Error('text suite: --data <folder> is required');
  const examplesDir = option(argv, '--examples');
  const splitDev = argv.includes('--split-dev') || (examplesDir !== undefined && path.resolve(examplesDir) === path.resolve(dataDir));
  const limit = Number(option(argv, '--limit') ?? Infinity);
  const examplesLimit = Number(option(argv, '--examples-limit') ?? Infinity);
  const quiet = argv.includes('--quiet');
  const files = findFiles(dataDir, '.jsonl');
  if (files.length === 0) throw new Error(`text suite: no *.jsonl under ${dataDir}`);
  const descriptions = loadDescriptions(dataDir);
  const exampleFiles = examplesDir && !splitDev ? findFiles(examplesDir, '.jsonl') : [];
  const mode = splitDev ? 'split-dev (even record index = examples, odd = scored)' : examplesDir ? `folder ${examplesDir}` : 'none';

  const totals = { written: emptyRun(), writtenBare: emptyRun(), normalized: emptyRun(), normalizedBare: emptyRun() };
  const perFile: Record<string, unknown> = {};
  const records = { written: 0, normalized: 0 };
  for (const file of files) {
    const all = loadRecords(file);
    const rel = path.relative(dataDir, file);
    const pairedExamples = exampleFiles.find((f) => path.relative(examplesDir!, f) === rel);
    const examples = (splitDev ? all.filter((_, i) => i % 2 === 0) : (pairedExamples ? [pairedExamples] : exampleFiles).flatMap(loadRecords)).slice(
      0,
      examplesLimit,
    );
    const data = (splitDev ? all.filter((_, i) => i % 2 === 1) : all).slice(0, limit);
    const withEx = run(data, examples, descriptions);
    const bare = examples.length > 0 ? run(data, [], descriptions) : withEx;
    const asWritten = isAsWritten(all);
    records[asWritten ? 'written' : 'normalized'] += data.length;
    merge(asWritten ? totals.written : totals.normalized, withEx);
    merge(asWritten ? totals.writtenBare : totals.normalizedBare, bare);
    if (!quiet) printTable(`${rel} (${data.length} records, examples: ${examples.length > 0 ? mode : 'none'})`, withEx);
    perFile[rel] = {
      records: data.length,
      kind: asWritten ? 'as-written' : 'normalized',
      exact: prf(withEx.exact),
      lenient: prf(withEx.lenient),
      unlisted_as_na: { exact: prf(withEx.unlistedAsNa) },
      brand: { exact: prf(withEx.brand), counts: withEx.brand, guesses: withEx.brandGuesses },
      ...(examples.length > 0
        ? {
            without_examples: {
              exact: prf(bare.exact),
              lenient: prf(bare.lenient),
              brand: { exact: prf(bare.brand), counts: bare.brand, guesses: bare.brandGuesses },
            },
          }
        : {}),
    };
  }
  const hasExamples = mode !== 'none';
  const main: 'written' | 'normalized' =
    totals.written.exact.VC + totals.written.exact.VN + totals.written.exact.NV + totals.written.exact.VW > 0 ? 'written' : 'normalized';
  const top = main === 'written' ? totals.written : totals.normalized;
  const topBare = main === 'written' ? totals.writtenBare : totals.normalizedBare;
  const result: Record<string, unknown> = {
    suite: 'text',
    records: records[main],
    examples: mode,
    exact: prf(top.exact),
    lenient: prf(top.lenient),
    unlisted_as_na: { exact: prf(top.unlistedAsNa) },
    brand: { exact: prf(top.brand), counts: top.brand, guesses: top.brandGuesses },
  };
  if (hasExamples)
    result.without_examples = {
      exact: prf(topBare.exact),
      lenient: prf(topBare.lenient),
      brand: { exact: prf(topBare.brand), counts: topBare.brand, guesses: topBare.brandGuesses },
    };
  if (main === 'written' && totals.normalized.exact.VC + totals.normalized.exact.VN + totals.normalized.exact.VW + totals.normalized.exact.NV > 0) {
    result.normalized = {
      exact: prf(totals.normalized.exact),
      lenient: prf(totals.normalized.lenient),
      ...(hasExamples ? { without_examples: { exact: prf(totals.normalizedBare.exact), lenient: prf(totals.normalizedBare.lenient) } } : {}),
    };
  }
  result.files = perFile;
  return result;
}

/** An empty accumulator of runs. */
export function emptyRun(): RunResult {
  return {
    exact: emptyCounts(),
    lenient: emptyCounts(),
    unlistedAsNa: emptyCounts(),
    perAttribute: new Map(),
    brand: emptyCounts(),
    brandGuesses: { total: 0, right: 0 },
  };
}

/** Adds run `from` into `into`. */
function merge(into: RunResult, from: RunResult): void {
  add(into.exact, from.exact);
  add(into.lenient, from.lenient);
  add(into.unlistedAsNa, from.unlistedAsNa);
  add(into.brand, from.brand);
  into.brandGuesses.total += from.brandGuesses.total;
  into.brandGuesses.right += from.brandGuesses.right;
}
