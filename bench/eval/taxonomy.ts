/**
 * `npm run eval -- taxonomy [--split test|dev] [--limit N] [--gold <file>] [--taxonomy <file>]`:
 * top-1 accuracy of category prediction (interface-spec.md `predict_taxonomy`; issue 26 §2) on
 * the labelled titles of `../shared/data/oa-mine` and `../shared/data/ae-110k`, whose categories
 * are mapped into the Google product taxonomy (5,595 nodes) by `taxonomy-gold/google.json`.
 *
 * Split (honest, fixed): every data file is split by record index parity. Odd records are the
 * `test` split, scored; even records are the `dev` split, the only records looked at while the
 * classifier was built and tuned, and the catalog's own categorised items in the "with examples"
 * mode (each labelled with its category's first Google node). `--split dev` scores the dev split
 * instead, against examples from its own halves (dev records 0, 2, 4, … of the even records are
 * examples, the others scored), so tuning never needs the test split.
 *
 * Two modes per split: `titles` (the title alone against the whole taxonomy) and `examples` (the
 * same, with the catalog's categorised items as examples: src/enrichment/taxonomy/examples.ts).
 * A prediction is right when it is one of the category's gold nodes or a descendant of one. Also
 * reported: `strict` (only the category's first node or its descendants), the two figures of
 * ../shared/spec/evaluation.md ("taxonomy"): `exact` (the predicted node is a gold node) and
 * `on_path` (a gold node, a descendant, or an ancestor at depth ≥ 3), and ms per item (the
 * first item's index build included in `build_ms`). `--limit N` scores the first N records of
 * each file (the floor in test/unit/eval/floors.test.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { classify, compileTaxonomy, type CompiledTaxonomy } from '../../src/enrichment/taxonomy';
import { trainCategoryExamples, type CategoryExample } from '../../src/enrichment/taxonomy/examples';
import { readGoogleTaxonomy } from '../../src/services/inference/taxonomy';
import { SHARED_DATA } from '../../test/helpers/data';
import { options, table } from './files';

/** The gold file: dataset → category → accepted Google nodes (first = the category's own). */
interface Gold {
  categories: Record<string, Record<string, { nodes: string[] }>>;
}

/** One labelled title. */
interface Record_ {
  dataset: string;
  category: string;
  title: string;
}

/** Accuracy figures of one mode. */
interface ModeFigures {
  accuracy: number;
  strict_accuracy: number;
  /** The predicted node is one of the gold nodes (spec: "exact node"). */
  exact_accuracy: number;
  /** A gold node, a descendant, or an ancestor at depth ≥ 3 of one (spec: "on the right path"). */
  on_path_accuracy: number;
  items: number;
  ms_per_item: number;
  by_dataset: Record<string, number>;
  by_category: Record<string, number>;
}

const round = (x: number): number => Number(x.toFixed(3));

/** Reads a dataset's `train.jsonl` records (`{input, category}`). */
function readRecords(dataset: string): Record_[] {
  return readFileSync(path.join(SHARED_DATA, dataset, 'train.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { input: string; category: string })
    .map((r) => ({ dataset, category: r.category, title: r.input }));
}

/** True when `id` is `gold` or below it. */
function within(tax: CompiledTaxonomy, id: string | undefined, gold: string[]): boolean {
  const node = id ? tax.nodes.get(id) : undefined;
  return Boolean(node && node.path_ids.some((p) => gold.includes(p)));
}

/** Depth from which an ancestor of the gold node counts as on the right path (../shared/spec/evaluation.md, "taxonomy"; a top-level node is depth 1). */
const ON_PATH_MIN_DEPTH = 3;

/** True when `id` is a gold node, below one, or above one at depth ≥ {@link ON_PATH_MIN_DEPTH}. */
function onPath(tax: CompiledTaxonomy, id: string | undefined, gold: string[]): boolean {
  const node = id ? tax.nodes.get(id) : undefined;
  if (!node) return false;
  if (within(tax, id, gold)) return true;
  return node.path_ids.length >= ON_PATH_MIN_DEPTH && gold.some((g) => tax.nodes.get(g)?.path_ids.includes(node.id));
}

/** Scores `scored` with the given examples (none = titles alone). */
function score(tax: CompiledTaxonomy, gold: Gold, scored: Record_[], examples: CategoryExample[]): ModeFigures & { build_ms: number } {
  const t0 = performance.now();
  const model = examples.length > 0 ? trainCategoryExamples(tax, examples) : undefined;
  classify(tax, { titles: ['warm-up'], categories: [], texts: [] }, model);
  const buildMs = performance.now() - t0;
  const hits = { all: 0, strict: 0, exact: 0, path: 0 };
  const per = (m: Map<string, [number, number]>, key: string, ok: boolean): void => {
    const [h, n] = m.get(key) ?? [0, 0];
    m.set(key, [h + (ok ? 1 : 0), n + 1]);
  };
  const byDataset = new Map<string, [number, number]>();
  const byCategory = new Map<string, [number, number]>();
  const t1 = performance.now();
  for (const r of scored) {
    const accepted = gold.categories[r.dataset][r.category].nodes;
    const predicted = classify(tax, { titles: [r.title], categories: [], texts: [] }, model)?.node.id;
    const ok = within(tax, predicted, accepted);
    if (ok) hits.all++;
    if (within(tax, predicted, accepted.slice(0, 1))) hits.strict++;
    if (predicted !== undefined && accepted.includes(predicted)) hits.exact++;
    if (onPath(tax, predicted, accepted)) hits.path++;
    per(byDataset, r.dataset, ok);
    per(byCategory, `${r.dataset}/${r.category}`, ok);
  }
  const ms = (performance.now() - t1) / Math.max(scored.length, 1);
  const ratio = (m: Map<string, [number, number]>): Record<string, number> => Object.fromEntries([...m].map(([k, [h, n]]) => [k, round(h / n)]));
  return {
    accuracy: round(hits.all / scored.length),
    strict_accuracy: round(hits.strict / scored.length),
    exact_accuracy: round(hits.exact / scored.length),
    on_path_accuracy: round(hits.path / scored.length),
    items: scored.length,
    ms_per_item: Number(ms.toFixed(2)),
    build_ms: Math.round(buildMs),
    by_dataset: ratio(byDataset),
    by_category: ratio(byCategory),
  };
}

/** Runs the suite (see the module comment); prints tables and returns the figures. */
export async function runTaxonomySuite(argv: string[]): Promise<Record<string, unknown>> {
  const split = options(argv, '--split')[0] ?? 'test';
  if (split !== 'test' && split !== 'dev') throw new Error(`--split must be test or dev, not ${split}`);
  const limit = Number(options(argv, '--limit')[0] ?? Infinity);
  const goldFile = options(argv, '--gold')[0] ?? path.join(__dirname, 'taxonomy-gold', 'google.json');
  const taxonomyFile = options(argv, '--taxonomy')[0] ?? path.join(SHARED_DATA, 'taxonomy', 'google', 'taxonomy-with-ids.en-US.txt');
  const gold = JSON.parse(readFileSync(goldFile, 'utf8')) as Gold;
  const tax = compileTaxonomy(readGoogleTaxonomy(taxonomyFile));
  const scored: Record_[] = [];
  const examples: CategoryExample[] = [];
  for (const dataset of Object.keys(gold.categories)) {
    const records = readRecords(dataset);
    // test: odd records scored, even records examples; dev: the even records, split again by parity.
    const pool = split === 'test' ? records : records.filter((_, i) => i % 2 === 0);
    const mine = pool.filter((_, i) => i % 2 === 1).slice(0, limit);
    scored.push(...mine);
    for (const r of pool.filter((_, i) => i % 2 === 0)) examples.push({ text: r.title, category_id: gold.categories[dataset][r.category].nodes[0] });
  }
  const titles = score(tax, gold, scored, []);
  const withExamples = score(tax, gold, scored, examples);
  console.log(`taxonomy: ${tax.nodes.size} nodes, split ${split}, ${scored.length} titles scored, ${examples.length} examples\n`);
  const cats = Object.keys(titles.by_category);
  console.log(
    table(
      ['category', 'titles alone', 'with examples'],
      [
        ...cats.map((c) => [c, titles.by_category[c], withExamples.by_category[c]]),
        ['ALL', titles.accuracy, withExamples.accuracy],
        ['ALL (strict)', titles.strict_accuracy, withExamples.strict_accuracy],
        ['ALL (spec: exact node)', titles.exact_accuracy, withExamples.exact_accuracy],
        ['ALL (spec: on the right path)', titles.on_path_accuracy, withExamples.on_path_accuracy],
      ],
    ),
  );
  console.log(
    `\nms per item: titles ${titles.ms_per_item}, with examples ${withExamples.ms_per_item} (build ${titles.build_ms} / ${withExamples.build_ms} ms)`,
  );
  return { suite: 'taxonomy', split, nodes: tax.nodes.size, examples: examples.length, titles, with_examples: withExamples };
}
