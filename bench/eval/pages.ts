import path from 'node:path';
import { auditResult } from '../../src/enrichment/result-audit';
import { judgeRow } from '../../src/services/enrichment/judge/judge';
import { createEngine } from '../../src/enrichment/engine';
import { possibleCurrencyCodes } from '../../src/enrichment/normalize/price';
import { openArchives, readArchiveIndex, stripUrl } from '../../src/enrichment/research/archive';
import { RULE_IDS, type ExtractionTuning, type RuleId } from '../../src/enrichment/extract/rules';
import { fitCalibration, type Calibration } from '../../src/enrichment/extract/calibration';
import type { EnrichInput, EnrichmentResult, Evidence, OutputField, Speed } from '../../src/enrichment/types';
import { canonicalDecimal, count, prf, type FieldCounts } from './metrics';
import { findFiles, options, readJson, table } from './files';
import { addPairCredit, ruleGains, rulePairs, ruleProvenance, rulesOffFor, siteFamily, type PageOutcome } from './lofo';
import { memoisedCells, outOfSampleCalibration, type CalibrationSource, type CellOutcome } from './calibrate';
import { grounded, Haystack } from './haystack';
import { isErratum, readErrata, withErrata, type LabelErratum } from './errata';

/** The labelled fields of the zyte product-extraction layout, in report order. */
export const PAGE_FIELDS = ['price', 'currency', 'availability', 'sku', 'brand', 'gtin', 'mpn'] as const;
type PageField = (typeof PAGE_FIELDS)[number];

/** Output schema of the pages suite (evaluation.md, "pages"). */
export const PAGES_SCHEMA: OutputField[] = [
  { name: 'price', type: 'number', description: 'Current selling price of the product' },
  { name: 'currency', type: 'string', description: 'ISO 4217 currency code of the price' },
  { name: 'availability', type: 'string', description: 'Stock availability', enum: ['InStock', 'OutOfStock'] },
  { name: 'sku', type: 'string', description: 'Identifier of the product on the site (SKU)' },
  { name: 'brand', type: 'string', description: 'Brand of the product' },
  { name: 'gtin', type: 'string', description: 'GTIN / EAN / UPC barcode number' },
  { name: 'mpn', type: 'string', description: 'Manufacturer part number' },
  { name: 'description', type: 'string', description: 'Product description' },
  { name: 'image_urls', type: 'array', array_element_type: 'image_url', description: 'Product image URLs' },
];

type Labels = Record<string, Record<string, unknown>>;

interface IndexRecord {
  id: string;
  url: string;
  file: string;
  og_title?: string | null;
  jsonld_product_names?: string[];
  html_title?: string | null;
}

/** Whether a JSON value is `{id: {field: value(s), url}}` keyed by the page ids. */
function keyedByIds(v: unknown, ids: Set<string>): v is Labels {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length > 0 && keys.filter((k) => ids.has(k)).length >= keys.length * 0.8;
}

/** `Title - Site` / `Site: Title` → `Title` (the longest segment around common separators). */
export function titleWithoutSite(title: string): string {
  const t = title.replace(/^[\w.-]+\.[a-z]{2,}(\.[a-z]{2})?\s*:\s*/i, '').trim();
  const parts = t
    .split(/\s+[|–—-]\s+|\s+::\s+/)
    .map((p) => p.trim())
    .filter(Boolean);
  return parts.length > 1 ? parts.slice(0, -1).join(' - ') : t;
}

/** Tier A item = name + brand when labelled; tier B = name only (evaluation.md). */
export function pageItem(rec: IndexRecord, labels: Record<string, unknown>, tier: 'A' | 'B'): Record<string, unknown> {
  const name = rec.og_title || rec.jsonld_product_names?.[0] || titleWithoutSite(rec.html_title ?? '');
  const item: Record<string, unknown> = { name };
  const brand = Array.isArray(labels.brand) ? labels.brand[0] : undefined;
  if (tier === 'A' && typeof brand === 'string' && brand) item.brand = brand;
  return item;
}

function acceptable(labels: Record<string, unknown>, field: string): string[] {
  const v = labels[field];
  return (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]).map(String).filter((s) => s.trim() !== '');
}

/** Whether `predicted` is among `gold` for a field (price as decimal; currency by the codes a symbol may denote). */
export function correct(field: PageField, predicted: unknown, gold: string[]): boolean {
  if (field === 'price') return gold.some((g) => canonicalDecimal(g) !== null && canonicalDecimal(g) === canonicalDecimal(predicted));
  if (field === 'currency') {
    const p = new Set([String(predicted), ...possibleCurrencyCodes(String(predicted))]);
    return gold.some((g) => g === predicted || [g, ...possibleCurrencyCodes(g)].some((c) => p.has(c)));
  }
  return gold.some((g) => g.trim() === String(predicted).trim());
}

function scoreBaselines(files: Array<[string, Labels]>, gold: Labels, scored: Set<string>): Array<[string, Record<string, number>]> {
  return files.map(([name, preds]) => {
    const f1: Record<string, number> = {};
    for (const field of PAGE_FIELDS) {
      const c: FieldCounts = { tp: 0, fp: 0, fn: 0 };
      for (const [id, labels] of Object.entries(gold)) {
        if (!scored.has(id)) continue;
        const g = acceptable(labels, field);
        let p = preds[id]?.[field];
        if ((p === undefined || p === null || p === '') && field === 'availability') p = 'InStock';
        const has = p !== undefined && p !== null && p !== '';
        const goldEff = field === 'availability' && g.length === 0 ? ['InStock'] : g;
        count(c, has, has && correct(field, p, goldEff), goldEff.length > 0);
      }
      f1[field] = prf(c).f1;
    }
    return [name, f1];
  });
}

/** The families a rule is left out for, as a short list (`all` when every family). */
function offFor(rule: RuleId, offByFamily: Record<string, string[]>): string {
  const fams = Object.entries(offByFamily)
    .filter(([, off]) => off.includes(rule))
    .map(([fam]) => fam);
  return fams.length === 0 ? '-' : fams.length === Object.keys(offByFamily).length ? 'all' : fams.join(', ');
}

/** What the engine told of one calibrated value it placed (ExtractionTuning.observe). */
interface Observed {
  field: string;
  cell: string;
  probability: number;
}

/** One labelled page with its research done once; every tuning's extraction reads the same evidence. */
interface Researched {
  rec: IndexRecord;
  labels: Record<string, unknown>;
  input: EnrichInput;
  evidence: Evidence;
  ownUrls: Set<string>;
  family: string;
}

/** Per field: a right value (or the right default availability) and a wrong value returned. */
function outcomeOf(labels: Record<string, unknown>, after: Record<string, unknown>): PageOutcome {
  const out: PageOutcome = {};
  for (const field of PAGE_FIELDS) {
    const g = acceptable(labels, field);
    const has = after[field] !== undefined && after[field] !== null && after[field] !== '';
    const p = has ? after[field] : field === 'availability' ? 'InStock' : undefined;
    const goldEff = field === 'availability' && g.length === 0 ? ['InStock'] : g;
    const predicted = has || field === 'availability';
    const right = predicted && correct(field, p, goldEff);
    out[field] = { right, wrong: predicted && !right };
  }
  return out;
}

/** Adds one page's result to per-field counts (upstream rules, metrics.ts `count`; no availability returned reads as InStock, the right one when none is labelled). */
function countFields(counts: Record<PageField, FieldCounts>, labels: Record<string, unknown>, after: Record<string, unknown>): void {
  const outcome = outcomeOf(labels, after);
  for (const field of PAGE_FIELDS) {
    const has = after[field] !== undefined && after[field] !== null && after[field] !== '';
    count(counts[field], has || field === 'availability', outcome[field].right, field === 'availability' || acceptable(labels, field).length > 0);
  }
}

/** The calibration cell of each returned labelled value of a result and whether it was right: what calibrations are fitted from. */
function cellOutcomes(observed: Observed[], outcome: PageOutcome, after: Record<string, unknown>): CellOutcome[] {
  return observed.filter((o) => o.field in outcome && after[o.field] !== undefined).map((o) => [o.cell, outcome[o.field].right]);
}

/**
 * The figures of one way of scoring the pages (plain, or LOFO): field counts, precision by
 * confidence level, audit decisions, cited sources, grounding, and the misses. An object per
 * run of the suite, never shared.
 */
class Tally {
  readonly counts = Object.fromEntries(PAGE_FIELDS.map((f) => [f, { tp: 0, fp: 0, fn: 0 }])) as Record<PageField, FieldCounts>;
  /** The same counts with the label errata applied (./errata.ts withErrata): shown beside, never instead of, the counts against the published labels. */
  readonly countsErrata = Object.fromEntries(PAGE_FIELDS.map((f) => [f, { tp: 0, fp: 0, fn: 0 }])) as Record<PageField, FieldCounts>;
  readonly byConfidence: Record<string, { returned: number; correct: number }> = {};
  /** The same per field: returned values and right ones per confidence level. */
  readonly byFieldConfidence = Object.fromEntries(PAGE_FIELDS.map((f) => [f, {}])) as Record<PageField, Record<string, { returned: number; correct: number }>>;
  readonly byAudit: Record<string, { items: number; returned: number; correct: number }> = {};
  /** The same, by the decision of `POST /public/judge` on the result as a client would send it (docs/api-enrichment.md "Judging"). */
  readonly byJudge: Record<string, { items: number; returned: number; correct: number }> = {};
  readonly misses: string[] = [];
  /** Calibrated values returned: their probability, level and whether right (reliability and ECE). */
  readonly calibrated: Array<{ probability: number; level: string; right: boolean }> = [];
  items = 0;
  cited = 0;
  citedOwn = 0;
  unlabelled = 0;
  grounded = 0;

  /** Wrong values returned at `high` confidence: page id, field, value, and whether a label erratum explains it (./errata.ts). */
  readonly highWrong: Array<{ page: string; field: PageField; value: unknown; erratum: boolean }> = [];

  constructor(
    private readonly hay: (file: string) => Haystack,
    private readonly errata: LabelErratum[] = [],
  ) {}

  /** Scores one page's result (upstream rules: metrics.ts count). */
  add(page: Researched, result: EnrichmentResult, filesByUrl: Map<string, string>, observed: Observed[] = []): void {
    const { rec, labels, input, evidence, ownUrls } = page;
    this.items++;
    const after = result.after_data;
    const audit = (this.byAudit[auditResult(result, input.item, PAGES_SCHEMA, evidence).decision] ??= { items: 0, returned: 0, correct: 0 });
    audit.items++;
    const { sources, source_explanations: _explanations, ...data } = after;
    const judged = judgeRow({ data, sources, review_info: result.review_info, before: input.item }, 0, PAGES_SCHEMA);
    const judge = (this.byJudge[judged.decision] ??= { items: 0, returned: 0, correct: 0 });
    judge.items++;
    const outcome = outcomeOf(labels, after);
    countFields(this.counts, labels, after);
    countFields(this.countsErrata, withErrata(this.errata, rec.id, labels), after);
    for (const field of PAGE_FIELDS) {
      const g = acceptable(labels, field);
      const has = after[field] !== undefined && after[field] !== null && after[field] !== '';
      const goldEff = field === 'availability' && g.length === 0 ? ['InStock'] : g;
      const ok = outcome[field].right;
      if (has) {
        audit.returned++;
        judge.returned++;
        if (ok) {
          audit.correct++;
          judge.correct++;
        }
        const level = result.review_info.field_confidence[field] ?? 'none';
        if (level === 'high' && !ok)
          this.highWrong.push({ page: rec.id, field, value: after[field], erratum: isErratum(this.errata, rec.id, field, after[field]) });
        const seen = observed.find((o) => o.field === field);
        if (seen) this.calibrated.push({ probability: seen.probability, level, right: ok });
        for (const c of [(this.byConfidence[level] ??= { returned: 0, correct: 0 }), (this.byFieldConfidence[field][level] ??= { returned: 0, correct: 0 })]) {
          c.returned++;
          if (ok) c.correct++;
        }
      }
      if (!ok && (has || goldEff.length > 0) && !(field === 'availability' && !has && goldEff.includes('InStock')))
        this.misses.push(
          `${rec.id.slice(0, 8)} ${field}: got ${has ? JSON.stringify(after[field]) : '-'} want ${JSON.stringify(g)}${has ? ` (${result.review_info.field_confidence[field] ?? '?'}${observed.find((o) => o.field === field)?.cell ? ` ${observed.find((o) => o.field === field)?.cell}` : ''})` : ''} [${after.source_explanations[field] ?? ''}]`,
        );
    }
    for (const field of [...PAGE_FIELDS, 'description', 'image_urls']) {
      const src = after.sources[field]?.[0];
      if (!src || src.startsWith('INPUT:')) continue;
      this.cited++;
      if (ownUrls.has(src)) this.citedOwn++;
    }
    for (const field of ['description', 'image_urls']) {
      const src = after.sources[field]?.[0];
      const file = src ? filesByUrl.get(src) : undefined;
      if (!src || !file) continue;
      this.unlabelled++;
      if (grounded(after[field], this.hay(file))) this.grounded++;
      else
        this.misses.push(
          `${rec.id.slice(0, 8)} ${field}: ${JSON.stringify(after[field]).slice(0, 160)} not found verbatim in ${src} [${after.source_explanations[field] ?? ''}]`,
        );
    }
    if (result.error) console.error(`engine error: ${result.error}`);
  }

  /** Reliability per confidence level (values, mean probability, precision) and the expected calibration error over 10 equal-width bins. */
  reliability(): { levels: Record<string, { values: number; mean_probability: number; precision: number }>; ece: number } {
    const r = (x: number) => Number(x.toFixed(4));
    const levels: Record<string, { values: number; mean_probability: number; precision: number }> = {};
    for (const level of ['high', 'medium', 'low']) {
      const xs = this.calibrated.filter((c) => c.level === level);
      if (xs.length === 0) continue;
      levels[level] = {
        values: xs.length,
        mean_probability: r(xs.reduce((s, c) => s + c.probability, 0) / xs.length),
        precision: r(xs.filter((c) => c.right).length / xs.length),
      };
    }
    let ece = 0;
    for (let b = 0; b < 10; b++) {
      const xs = this.calibrated.filter((c) => Math.min(9, Math.floor(c.probability * 10)) === b);
      if (xs.length === 0) continue;
      const meanP = xs.reduce((s, c) => s + c.probability, 0) / xs.length;
      const acc = xs.filter((c) => c.right).length / xs.length;
      ece += (xs.length / this.calibrated.length) * Math.abs(meanP - acc);
    }
    return { levels, ece: r(ece) };
  }

  /** Wrong values returned at `high` confidence (each is also among the misses), per field. */
  highErrors(field: PageField): number {
    const c = this.byFieldConfidence[field].high;
    return c ? c.returned - c.correct : 0;
  }

  /** Per field and confidence level: values returned and their precision. */
  fieldConfidence(): Record<PageField, Record<string, { values: number; precision: number }>> {
    const r = (x: number) => Number(x.toFixed(4));
    return Object.fromEntries(
      PAGE_FIELDS.map((f) => [
        f,
        Object.fromEntries(Object.entries(this.byFieldConfidence[f]).map(([k, v]) => [k, { values: v.returned, precision: r(v.correct / v.returned) }])),
      ]),
    ) as Record<PageField, Record<string, { values: number; precision: number }>>;
  }

  /** The JSON figures (fractions rounded to 4 decimals); `fields` adds each field's `high_errors` to its precision / recall / F1. */
  figures(): Record<string, unknown> {
    const r = (x: number) => Number(x.toFixed(4));
    return {
      calibration: this.reliability(),
      fields: Object.fromEntries(PAGE_FIELDS.map((f) => [f, { ...prf(this.counts[f]), high_errors: this.highErrors(f) }])),
      // The same fields scored with the label errata applied (bench/eval/label-errata.json): printed beside, never instead of, `fields`.
      fields_with_errata: Object.fromEntries(PAGE_FIELDS.map((f) => [f, prf(this.countsErrata[f])])),
      high_errors: PAGE_FIELDS.reduce((s, f) => s + this.highErrors(f), 0),
      // The same values, each marked when a label erratum explains it; `high_errors_unexplained` counts the others.
      high_error_values: this.highWrong,
      high_errors_unexplained: this.highWrong.filter((x) => !x.erratum).length,
      confidence_by_field: this.fieldConfidence(),
      source_precision: r(this.cited ? this.citedOwn / this.cited : 0),
      grounded_rate: r(this.unlabelled ? this.grounded / this.unlabelled : 0),
      precision_by_confidence: Object.fromEntries(Object.entries(this.byConfidence).map(([k, v]) => [k, r(v.correct / v.returned)])),
      audit: Object.fromEntries(Object.entries(this.byAudit).map(([k, v]) => [k, { items: v.items, precision: r(v.correct / Math.max(1, v.returned)) }])),
      judge: Object.fromEntries(Object.entries(this.byJudge).map(([k, v]) => [k, { items: v.items, precision: r(v.correct / Math.max(1, v.returned)) }])),
    };
  }
}

/**
 * The pages suite (evaluation.md "pages"): for each page of `--data` (a zyte
 * product-extraction layout: page-index.json, a ground-truth JSON keyed by page id, baseline
 * predictions in the same shape), builds the tier's input item, runs the full engine
 * (search, fetch, parse, extract) over `--data` plus every `--corpus` archive, and scores it.
 * `--cv family` also scores every site family (bench/eval/lofo.ts siteFamily) with the rules and
 * calibration fitted without it (leave-one-site-family-out; the calibration nested, ./calibrate.ts);
 * its figures then lead the JSON (`fields`, …), the plain ones follow under `plain`, and
 * `calibration_out_of_sample` is the table that ships (bench/eval/write-calibration.ts). Each
 * field's `high_errors` (and their sum, `high_errors`) counts wrong values returned at `high`
 * confidence (`high_error_values` lists them, `high_errors_unexplained` those no label erratum of
 * ./errata.ts explains); `confidence_by_field` gives precision per field and level. `--family a,b` scores only those
 * families (and fits only on them). Research runs once per page; each tuning re-extracts from
 * the same evidence. Prints tables; returns `{suite: "pages", items, fields, source_precision,
 * hit_at_5, grounded_rate, items_per_s, ...}`.
 * Long on purpose: options, corpus, runs and report read in order as one suite.
 * @throws Error when --data has no page-index.json or no ground truth, or on an unknown --cv
 */
export async function runPagesSuite(argv: string[]): Promise<Record<string, unknown>> {
  const data = options(argv, '--data')[0];
  if (!data) throw new Error('pages suite: --data <folder> is required');
  const corpus = options(argv, '--corpus');
  const tier = (options(argv, '--tier')[0] ?? 'A').toUpperCase() === 'B' ? 'B' : 'A';
  const speed = (options(argv, '--speed')[0] ?? 'fast') as Speed;
  const cv = options(argv, '--cv')[0];
  if (cv !== undefined && cv !== 'family') throw new Error(`pages suite: --cv ${cv}: only "family" is known`);
  const only = new Set(options(argv, '--family').flatMap((f) => f.split(',')));
  const index = readJson(path.join(data, 'page-index.json')) as IndexRecord[];
  const ids = new Set(index.map((r) => r.id));
  const keyed = findFiles(data, '.json')
    .map((f) => [f, readJson(f)] as const)
    .filter(([, v]) => keyedByIds(v, ids)) as Array<[string, Labels]>;
  const goldEntry = keyed.find(([, v]) => Object.values(v).some((r) => Object.values(r).some(Array.isArray)));
  if (!goldEntry) throw new Error(`pages suite: no ground truth keyed by page id under ${data}`);
  const gold = goldEntry[1];
  const baselines = keyed.filter(([f]) => f !== goldEntry[0]).map(([f, v]) => [path.basename(f, '.json'), v] as [string, Labels]);

  const archive = openArchives([data, ...corpus]);
  const indexStart = Date.now();
  archive.warm();
  const indexSeconds = (Date.now() - indexStart) / 1000;
  const engineFor = (tuning?: ExtractionTuning) => createEngine({ search: archive.search, fetcher: archive.fetcher, tuning });
  const engine = engineFor();
  const filesByUrl = new Map(archive.pages.map((p) => [p.url, p.file]));
  const ownFile = new Map(readArchiveIndex(data).map((p) => [p.url, p]));
  const hays = new Map<string, Haystack>();
  const hay = (file: string) => hays.get(file) ?? hays.set(file, new Haystack(file)).get(file)!;

  const pages: Researched[] = [];
  let hits = 0;
  let engineMs = 0;
  for (const rec of index) {
    const labels = gold[rec.id];
    const family = siteFamily(rec.url);
    if (!labels || (only.size > 0 && !only.has(family))) continue;
    const own = ownFile.get(rec.url);
    const ownUrls = new Set([rec.url, own?.canonical_href, stripUrl(rec.url)].filter(Boolean) as string[]);
    const input: EnrichInput = { item: pageItem(rec, labels, tier), output_schema: PAGES_SCHEMA, options: { speed, web_search: true } };
    const t0 = Date.now();
    const { evidence } = await engine.research(input);
    engineMs += Date.now() - t0;
    if (evidence.search_results.slice(0, 5).some((r) => ownUrls.has(r.url))) hits++;
    pages.push({ rec, labels, input, evidence, ownUrls, family });
  }
  const errata = readErrata();
  const plain = new Tally(hay, errata);
  const plainOutcomes = new Map<string, PageOutcome>();
  // Per page, the calibration cell of each returned labelled value and whether it was right: what calibrations are fitted from.
  const cells = new Map<string, CellOutcome[]>();
  let observed: Observed[] = [];
  // Per page, the rules its extraction asked about: switching off rules it never asked about cannot change it (ruleOn).
  const asked = new Map<string, Set<RuleId>>();
  let asking = new Set<RuleId>();
  const observing = engineFor({
    observe: (field, cell, probability) => void observed.push({ field, cell, probability }),
    consulted: (rule) => void asking.add(rule),
  });
  const asksAny = (id: string, rules: Iterable<RuleId>) => [...rules].some((r) => asked.get(id)!.has(r));
  for (const page of pages) {
    observed = [];
    asking = new Set();
    asked.set(page.rec.id, asking);
    const t0 = Date.now();
    const { result } = await observing.extract(page.input, page.evidence);
    engineMs += Date.now() - t0;
    plain.add(page, result, filesByUrl, observed);
    const outcome = outcomeOf(page.labels, result.after_data);
    plainOutcomes.set(page.rec.id, outcome);
    cells.set(page.rec.id, cellOutcomes(observed, outcome, result.after_data));
  }
  const allCells = [...cells.values()].flat();

  let lofo: Tally | null = null;
  let shipped: Calibration | null = null;
  let provenance: ReturnType<typeof ruleProvenance> = [];
  const offByFamily: Record<string, string[]> = {};
  if (cv === 'family') {
    const familyOf = new Map(pages.map((p) => [p.rec.id, p.family]));
    const ablated = new Map<RuleId, Map<string, PageOutcome>>();
    // A page that asked about none of the rules switched off keeps its plain outcome.
    const outcomeWith = async (off: ReturnType<typeof engineFor>, page: Researched, rules: readonly RuleId[]) =>
      asksAny(page.rec.id, rules) ? outcomeOf(page.labels, (await off.extract(page.input, page.evidence)).result.after_data) : plainOutcomes.get(page.rec.id)!;
    for (const rule of RULE_IDS) {
      const off = engineFor({ disabled_rules: new Set([rule]) });
      const outcomes = new Map<string, PageOutcome>();
      for (const page of pages) outcomes.set(page.rec.id, await outcomeWith(off, page, [rule]));
      ablated.set(rule, outcomes);
    }
    const gains = ruleGains(plainOutcomes, ablated);
    const pairs = new Map<string, { rules: [RuleId, RuleId]; outcomes: Map<string, PageOutcome> }>();
    for (const rules of rulePairs()) {
      const off = engineFor({ disabled_rules: new Set(rules) });
      const outcomes = new Map<string, PageOutcome>();
      for (const page of pages) outcomes.set(page.rec.id, await outcomeWith(off, page, rules));
      pairs.set(rules.join('+'), { rules, outcomes });
    }
    addPairCredit(gains, plainOutcomes, pairs);
    provenance = ruleProvenance(gains, familyOf);
    // Out-of-sample cells (./calibrate.ts): one observing engine per set of rules left out, each page extracted once per set.
    const observers = new Map<string, { engine: ReturnType<typeof engineFor>; seen: Observed[] }>();
    const byId = new Map(pages.map((p) => [p.rec.id, p]));
    const source: CalibrationSource = {
      rulesOff: (held) => rulesOffFor(held, gains, familyOf),
      cellsOf: memoisedCells(async (id, off) => {
        if (!asksAny(id, off)) return cells.get(id)!;
        const key = [...off].sort().join(',');
        let o = observers.get(key);
        if (!o) {
          const seen: Observed[] = [];
          o = { engine: engineFor({ disabled_rules: off, observe: (field, cell, probability) => void seen.push({ field, cell, probability }) }), seen };
          observers.set(key, o);
        }
        const page = byId.get(id)!;
        o.seen.length = 0;
        const { result } = await o.engine.extract(page.input, page.evidence);
        return cellOutcomes(o.seen, outcomeOf(page.labels, result.after_data), result.after_data);
      }),
    };
    const refs = pages.map((p) => ({ id: p.rec.id, family: p.family }));
    shipped = await outOfSampleCalibration(refs, source);
    lofo = new Tally(hay, errata);
    for (const family of [...new Set(pages.map((p) => p.family))].sort()) {
      const off = rulesOffFor(family, gains, familyOf);
      offByFamily[family] = [...off].filter((r) => (gains.get(r)?.size ?? 0) > 0);
      // Nested: the table this family is scored with is fitted, as the shipped one is, on the other families alone.
      const calibration = await outOfSampleCalibration(refs, source, new Set([family]));
      const held = engineFor({ disabled_rules: off, calibration, observe: (field, cell, probability) => void observed.push({ field, cell, probability }) });
      for (const page of pages.filter((p) => p.family === family)) {
        observed = [];
        lofo.add(page, (await held.extract(page.input, page.evidence)).result, filesByUrl, observed);
      }
    }
  }

  const baselineF1 = scoreBaselines(baselines, gold, new Set(pages.map((p) => p.rec.id)));
  const lead = lofo ?? plain;
  if (argv.includes('--misses')) console.log(lead.misses.join('\n'));
  const items = pages.length;
  console.log(
    `pages suite: ${items} items (${new Set(pages.map((p) => p.family)).size} site families), tier ${tier}, speed ${speed}, corpus ${archive.pages.length} pages (index built in ${indexSeconds.toFixed(1)} s)${lofo ? ', LOFO = each site family scored with rules and calibration fitted without it' : ''}`,
  );
  type Fields = Record<PageField, { precision: number; recall: number; f1: number }>;
  const plainFields = plain.figures().fields as Fields;
  const lofoFields = lofo?.figures().fields as Fields | undefined;
  // With the label errata applied (./errata.ts): printed beside the figures against the published labels.
  const plainErrata = plain.figures().fields_with_errata as Fields;
  const lofoErrata = lofo?.figures().fields_with_errata as Fields | undefined;
  const f = (x: number) => x.toFixed(3);
  console.log(
    table(
      [
        'field',
        'precision',
        'recall',
        'F1',
        'F1 errata',
        'high errors',
        ...(lofoFields ? ['LOFO P', 'LOFO R', 'LOFO F1', 'LOFO F1 errata', 'LOFO high errors'] : []),
        ...baselineF1.map(([n]) => `${n} F1`),
      ],
      PAGE_FIELDS.map((field) => [
        field,
        f(plainFields[field].precision),
        f(plainFields[field].recall),
        f(plainFields[field].f1),
        f(plainErrata[field].f1),
        plain.highErrors(field),
        ...(lofo && lofoFields && lofoErrata
          ? [f(lofoFields[field].precision), f(lofoFields[field].recall), f(lofoFields[field].f1), f(lofoErrata[field].f1), lofo.highErrors(field)]
          : []),
        // Tier A hands the engine the brand: its brand is not comparable with extractors never given it.
        ...baselineF1.map(([, b]) => (field === 'brand' && tier === 'A' ? `(${f(b[field])})` : f(b[field]))),
      ]),
    ),
  );
  if (tier === 'A')
    console.log('brand: tier A gives the engine the brand; compare brand with the baselines in tier B only (bracketed figures are not comparable).');
  console.log(
    `F1 is against the labels as published; F1 errata is the same with the ${errata.length} label errata of bench/eval/label-errata.json applied (the label replaced by the value the page states): ${errata.map((e) => `${e.page.slice(0, 8)} ${e.field} ${JSON.stringify(e.label)} → ${JSON.stringify(e.page_value)}`).join('; ')}`,
  );
  for (const [name, t] of [['plain', plain], ...(lofo ? [['LOFO', lofo] as const] : [])] as Array<[string, Tally]>)
    console.log(
      `wrong values at high confidence (${name}): ${t.highWrong.length}, ${t.highWrong.filter((x) => x.erratum).length} of them where the page contradicts its label (bench/eval/label-errata.json)${t.highWrong.map((x) => `; ${x.page.slice(0, 8)} ${x.field} ${JSON.stringify(x.value)}${x.erratum ? ' (erratum)' : ''}`).join('')}`,
    );
  for (const [name, t] of [['plain', plain], ...(lofo ? [['LOFO', lofo] as const] : [])] as Array<[string, Tally]>) {
    const rel = t.reliability();
    console.log(
      table(
        [`calibrated confidence (${name})`, 'values', 'mean probability', 'precision'],
        Object.entries(rel.levels).map(([k, v]) => [k, v.values, v.mean_probability.toFixed(3), v.precision.toFixed(3)]),
      ),
    );
    console.log(`expected calibration error (${name}, 10 bins): ${rel.ece.toFixed(3)}`);
    console.log(
      table(
        [`confidence (${name})`, 'returned', 'precision'],
        Object.entries(t.byConfidence).map(([k, v]) => [k, v.returned, (v.correct / v.returned).toFixed(3)]),
      ),
    );
    console.log(
      table(
        [`audit (${name})`, 'items', 'values', 'precision'],
        Object.entries(t.byAudit).map(([k, v]) => [k, v.items, v.returned, (v.correct / Math.max(1, v.returned)).toFixed(3)]),
      ),
    );
    console.log(
      table(
        [`judge, POST /public/judge (${name})`, 'items', 'values', 'precision'],
        Object.entries(t.byJudge).map(([k, v]) => [k, v.items, v.returned, (v.correct / Math.max(1, v.returned)).toFixed(3)]),
      ),
    );
  }
  if (lofo) {
    const byField = lofo.fieldConfidence();
    const cell = (v?: { values: number; precision: number }) => (v ? `${v.precision.toFixed(3)} (${v.values})` : '-');
    console.log(
      table(
        ['LOFO precision by field (values)', 'high', 'medium', 'low'],
        PAGE_FIELDS.map((field) => [field, cell(byField[field].high), cell(byField[field].medium), cell(byField[field].low)]),
      ),
    );
  }
  if (lofo)
    console.log(
      table(
        ['rule', 'gain by site family (right − wrong values when the rule is on)', 'off for'],
        provenance.map(([rule, fams]) => [
          rule,
          fams.map(([fam, g]) => `${fam} ${g > 0 ? '+' : ''}${Number(g.toFixed(1))}`).join(', ') || '-',
          offFor(rule, offByFamily),
        ]),
      ),
    );
  const r = (x: number) => Number(x.toFixed(4));
  const shared = { hit_at_5: r(items ? hits / items : 0), items_per_s: r(items / Math.max(engineMs / 1000, 1e-3)) };
  return {
    suite: 'pages',
    items,
    families: new Set(pages.map((p) => p.family)).size,
    ...lead.figures(),
    ...shared,
    tier,
    speed,
    cv: cv ?? 'none',
    index_build_s: r(indexSeconds),
    // In sample: counted on the plain run's values (every rule on), for comparison only.
    calibration_all_pages: fitCalibration(allCells),
    // What ships (src/enrichment/extract/calibration-table.ts, written by bench/eval/write-calibration.ts): each family's values predicted with the rules fitted without it.
    ...(shipped ? { calibration_out_of_sample: shipped } : {}),
    ...(lofo ? { plain: plain.figures(), rules: Object.fromEntries(provenance.map(([rule, fams]) => [rule, Object.fromEntries(fams)])) } : {}),
    baselines_f1: Object.fromEntries(baselineF1),
  };
}
