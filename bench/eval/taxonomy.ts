/**
 * `npm run eval -- taxonomy [--split test|dev] [--limit N] [--misses] [--gold <file>] [--taxonomy <file>] [--custom-trees <file>] [--pages N] [--pages-gold <file>] [--no-page-cache]`:
 * top-1 accuracy of category prediction (the `predict_taxonomy` option; docs/evaluation-taxonomy.md) on
 * the labelled titles of `../shared/data/oa-mine` and `../shared/data/ae-110k`, whose categories
 * are mapped into the Google product taxonomy (5,595 nodes) by `taxonomy-gold/google.json`.
 *
 * Split (honest, fixed): every data file is split by record index parity. Odd records are the
 * `test` split, scored; even records are the `dev` split, the only records looked at while the
 * classifier was built and tuned, and the catalog's own categorised items in the "with examples"
 * mode (each labelled with its category's first Google node). `--split dev` scores the dev split
 * instead, against examples from its own halves (dev records 0, 2, 4, … of the even records are
 * examples, the others scored), so tuning never needs the test split (one later round also listed
 * the test split's misses to find classes of them: docs/evaluation-taxonomy.md, round 6).
 *
 * Two modes per split: `titles` (the title alone against the whole taxonomy) and `examples` (the
 * same, with the catalog's categorised items as examples: src/enrichment/taxonomy/examples.ts).
 * A prediction is right when it is one of the category's gold nodes or a descendant of one. Also
 * reported: `strict` (only the category's first node or its descendants), the two figures of
 * the taxonomy evaluation (docs/evaluation-taxonomy.md): `exact` (the predicted node is a gold node) and
 * `on_path` (a gold node, a descendant, or an ancestor at depth ≥ 3), and ms per item (the
 * first item's index build included in `build_ms`). `--limit N` scores the first N records of
 * each file (the floor in test/unit/eval/floors.test.ts). `custom_tree`: the scored titles and the
 * multilingual set predicted into five shops' own small taxonomies (./taxonomy-custom.ts).
 * `--misses` also prints the titles-alone and type-left-out modes' missed titles per category with what was predicted
 * (use it with `--split dev`, the split looked at while tuning), and the pages section's pages wrong in any reading.
 * `pages`: labelled product pages predicted from the product's name alone and with the page as research evidence
 * (./taxonomy-pages.ts; gold `taxonomy-gold/pages-google.json`, `--pages-gold <file>`); `--pages N` scores the first N
 * pages of each page set (0: none). They are parsed in a worker thread while the titles are scored, and the parses
 * cached in the system's temporary folder, keyed by the engine's source (`--no-page-cache`: parse them again).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { classify, compileTaxonomy, type CompiledTaxonomy } from '../../src/enrichment/taxonomy';
import { trainCategoryExamples, type CategoryExample } from '../../src/enrichment/taxonomy/examples';
import { readGoogleTaxonomy } from '../../src/services/sheets/taxonomy';
import { SHARED_DATA } from '../../test/helpers/data';
import { options, table } from './files';
import { CUSTOM_TREES_FILE, scoreCustomTrees, type CustomTitle } from './taxonomy-custom';
import { PAGES_GOLD_FILE, parsedPages, printPagesFigures, readLabelledPages, scoreLabelledPages } from './taxonomy-pages';

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
  /** Titles the classifier abstained on (no category set; counted as misses in `accuracy`). */
  abstained: number;
  /** Accuracy over the titles it answered. */
  answered_accuracy: number;
  ms_per_item: number;
  by_dataset: Record<string, number>;
  by_category: Record<string, number>;
  /** The missed titles (`--misses`): category key → "title → predicted path" lines. */
  misses?: Record<string, string[]>;
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

/** Depth from which an ancestor of the gold node counts as on the right path (docs/evaluation-taxonomy.md; a top-level node is depth 1). */
const ON_PATH_MIN_DEPTH = 3;

/** True when `id` is a gold node, below one, or above one at depth ≥ {@link ON_PATH_MIN_DEPTH}. */
function onPath(tax: CompiledTaxonomy, id: string | undefined, gold: string[]): boolean {
  const node = id ? tax.nodes.get(id) : undefined;
  if (!node) return false;
  if (within(tax, id, gold)) return true;
  return node.path_ids.length >= ON_PATH_MIN_DEPTH && gold.some((g) => tax.nodes.get(g)?.path_ids.includes(node.id));
}

/** Scores `scored` with the given examples (none = titles alone). */
function score(tax: CompiledTaxonomy, gold: Gold, scored: Record_[], examples: CategoryExample[], keepMisses = false): ModeFigures & { build_ms: number } {
  const t0 = performance.now();
  const model = examples.length > 0 ? trainCategoryExamples(tax, examples) : undefined;
  classify(tax, { titles: ['warm-up'], categories: [], texts: [] }, model);
  const buildMs = performance.now() - t0;
  const hits = { all: 0, strict: 0, exact: 0, path: 0, abstained: 0 };
  const per = (m: Map<string, [number, number]>, key: string, ok: boolean): void => {
    const [h, n] = m.get(key) ?? [0, 0];
    m.set(key, [h + (ok ? 1 : 0), n + 1]);
  };
  const byDataset = new Map<string, [number, number]>();
  const byCategory = new Map<string, [number, number]>();
  const misses: Record<string, string[]> = {};
  const t1 = performance.now();
  for (const r of scored) {
    const accepted = gold.categories[r.dataset][r.category].nodes;
    const prediction = classify(tax, { titles: [r.title], categories: [], texts: [] }, model);
    // An abstention sets no category in the service: a miss here.
    const predicted = prediction?.abstain ? undefined : prediction?.node.id;
    if (prediction?.abstain) hits.abstained++;
    const ok = within(tax, predicted, accepted);
    if (ok) hits.all++;
    if (within(tax, predicted, accepted.slice(0, 1))) hits.strict++;
    if (predicted !== undefined && accepted.includes(predicted)) hits.exact++;
    if (onPath(tax, predicted, accepted)) hits.path++;
    per(byDataset, r.dataset, ok);
    per(byCategory, `${r.dataset}/${r.category}`, ok);
    if (keepMisses && !ok) {
      const got = prediction ? `${prediction.abstain ? 'ABSTAIN ' : ''}${prediction.node.path.join(' > ')}` : 'none';
      (misses[`${r.dataset}/${r.category}`] ??= []).push(`${r.title} → ${got}`);
    }
  }
  const ms = (performance.now() - t1) / Math.max(scored.length, 1);
  const ratio = (m: Map<string, [number, number]>): Record<string, number> => Object.fromEntries([...m].map(([k, [h, n]]) => [k, round(h / n)]));
  return {
    accuracy: round(hits.all / scored.length),
    strict_accuracy: round(hits.strict / scored.length),
    exact_accuracy: round(hits.exact / scored.length),
    on_path_accuracy: round(hits.path / scored.length),
    items: scored.length,
    abstained: hits.abstained,
    answered_accuracy: round(hits.all / Math.max(1, scored.length - hits.abstained)),
    ms_per_item: Number(ms.toFixed(2)),
    build_ms: Math.round(buildMs),
    by_dataset: ratio(byDataset),
    by_category: ratio(byCategory),
    ...(keepMisses ? { misses } : {}),
  };
}

/** The hand-written multilingual set: titles with their language and accepted nodes. */
interface MultilingualGold {
  titles: Array<{ lang: string; title: string; nodes: string[] }>;
}

/** Top-1 accuracy (abstentions are misses) on the multilingual set, overall and per language. */
function scoreMultilingual(tax: CompiledTaxonomy, file: string): { accuracy: number; items: number; abstained: number; by_language: Record<string, number> } {
  const gold = JSON.parse(readFileSync(file, 'utf8')) as MultilingualGold;
  const per = new Map<string, [number, number]>();
  let hits = 0;
  let abstained = 0;
  for (const t of gold.titles) {
    const p = classify(tax, { titles: [t.title], categories: [], texts: [] });
    if (p?.abstain) abstained++;
    const ok = !p?.abstain && within(tax, p?.node.id, t.nodes);
    if (ok) hits++;
    const [h, n] = per.get(t.lang) ?? [0, 0];
    per.set(t.lang, [h + (ok ? 1 : 0), n + 1]);
  }
  const byLanguage = Object.fromEntries([...per].map(([k, [h, n]]) => [k, round(h / n)]));
  return { accuracy: round(hits / gold.titles.length), items: gold.titles.length, abstained, by_language: byLanguage };
}

/**
 * Leave-one-product-type-out: each category's scored titles classified with a model trained on
 * the examples of the other categories only (the titles-alone mode learns nothing, so its
 * figures are the same whether a type is left out or not).
 */
function scoreLeftOut(
  tax: CompiledTaxonomy,
  gold: Gold,
  scored: Record_[],
  examples: Array<CategoryExample & { key: string }>,
  keepMisses = false,
): ModeFigures {
  const keys = [...new Set(scored.map((r) => `${r.dataset}/${r.category}`))];
  const parts = keys.map((key) => {
    const mine = scored.filter((r) => `${r.dataset}/${r.category}` === key);
    const others = examples.filter((e) => e.key !== key).map(({ text, category_id }) => ({ text, category_id }));
    return { key, mine, figures: score(tax, gold, mine, others, keepMisses) };
  });
  const n = scored.length;
  const sum = (f: (m: ModeFigures) => number): number => parts.reduce((a, p) => a + f(p.figures) * p.mine.length, 0);
  return {
    accuracy: round(sum((m) => m.accuracy) / n),
    strict_accuracy: round(sum((m) => m.strict_accuracy) / n),
    exact_accuracy: round(sum((m) => m.exact_accuracy) / n),
    on_path_accuracy: round(sum((m) => m.on_path_accuracy) / n),
    items: n,
    abstained: parts.reduce((a, p) => a + p.figures.abstained, 0),
    answered_accuracy: round(sum((m) => m.accuracy) / Math.max(1, n - parts.reduce((a, p) => a + p.figures.abstained, 0))),
    ms_per_item: round(sum((m) => m.ms_per_item) / n),
    by_dataset: {},
    by_category: Object.fromEntries(parts.map((p) => [p.key, p.figures.accuracy])),
    ...(keepMisses ? { misses: Object.assign({}, ...parts.map((p) => p.figures.misses ?? {})) as Record<string, string[]> } : {}),
  };
}

/** Runs the suite (see the module comment); prints tables and returns the figures. */
export async function runTaxonomySuite(argv: string[]): Promise<Record<string, unknown>> {
  const split = options(argv, '--split')[0] ?? 'test';
  if (split !== 'test' && split !== 'dev') throw new Error(`--split must be test or dev, not ${split}`);
  const limit = Number(options(argv, '--limit')[0] ?? Infinity);
  // The labelled pages are parsed on another core while the titles are scored (./taxonomy-pages.ts).
  const pagesPerSet = Number(options(argv, '--pages')[0] ?? Infinity);
  const labelledPages = pagesPerSet > 0 ? readLabelledPages(SHARED_DATA, options(argv, '--pages-gold')[0] ?? PAGES_GOLD_FILE, pagesPerSet) : [];
  const parsing = parsedPages(labelledPages, !argv.includes('--no-page-cache'));
  const goldFile = options(argv, '--gold')[0] ?? path.join(__dirname, 'taxonomy-gold', 'google.json');
  const taxonomyFile = options(argv, '--taxonomy')[0] ?? path.join(SHARED_DATA, 'taxonomy', 'google', 'taxonomy-with-ids.en-US.txt');
  const gold = JSON.parse(readFileSync(goldFile, 'utf8')) as Gold;
  const tax = compileTaxonomy(readGoogleTaxonomy(taxonomyFile));
  const scored: Record_[] = [];
  const examples: Array<CategoryExample & { key: string }> = [];
  for (const dataset of Object.keys(gold.categories)) {
    const records = readRecords(dataset);
    // test: odd records scored, even records examples; dev: the even records, split again by parity.
    const pool = split === 'test' ? records : records.filter((_, i) => i % 2 === 0);
    const mine = pool.filter((_, i) => i % 2 === 1).slice(0, limit);
    scored.push(...mine);
    for (const r of pool.filter((_, i) => i % 2 === 0))
      examples.push({ text: r.title, category_id: gold.categories[dataset][r.category].nodes[0], key: `${dataset}/${r.category}` });
  }
  const titles = score(tax, gold, scored, [], argv.includes('--misses'));
  const withExamples = score(tax, gold, scored, examples);
  const leftOut = scoreLeftOut(tax, gold, scored, examples, argv.includes('--misses'));
  const multilingualFile = options(argv, '--multilingual')[0] ?? path.join(__dirname, 'taxonomy-gold', 'multilingual.json');
  const multilingual = scoreMultilingual(tax, multilingualFile);
  const customTitles: CustomTitle[] = [
    ...scored.map((r) => ({ title: r.title, google: gold.categories[r.dataset][r.category].nodes, group: r.dataset })),
    ...(JSON.parse(readFileSync(multilingualFile, 'utf8')) as MultilingualGold).titles.map((t) => ({
      title: t.title,
      google: t.nodes,
      group: `multilingual/${t.lang}`,
    })),
  ];
  const customTreesFile = options(argv, '--custom-trees')[0] ?? CUSTOM_TREES_FILE;
  const custom = scoreCustomTrees(tax, customTitles, customTreesFile);
  for (const [mode, figures] of [
    ['titles alone', titles],
    ['type left out', leftOut],
  ] as const)
    for (const [key, lines] of Object.entries(figures.misses ?? {})) console.log(`misses (${mode}) ${key} (${lines.length}):\n  ${lines.join('\n  ')}\n`);
  console.log(`taxonomy: ${tax.nodes.size} nodes, split ${split}, ${scored.length} titles scored, ${examples.length} examples\n`);
  const cats = Object.keys(titles.by_category);
  console.log(
    table(
      ['category', 'titles alone', 'with examples', 'examples, type left out'],
      [
        ...cats.map((c) => [c, titles.by_category[c], withExamples.by_category[c], leftOut.by_category[c]]),
        ['ALL', titles.accuracy, withExamples.accuracy, leftOut.accuracy],
        ['ALL (strict)', titles.strict_accuracy, withExamples.strict_accuracy, leftOut.strict_accuracy],
        ['ALL (spec: exact node)', titles.exact_accuracy, withExamples.exact_accuracy, leftOut.exact_accuracy],
        ['ALL (spec: on the right path)', titles.on_path_accuracy, withExamples.on_path_accuracy, leftOut.on_path_accuracy],
        ['abstained (no category set)', titles.abstained, withExamples.abstained, leftOut.abstained],
        ['accuracy of the answers given', titles.answered_accuracy, withExamples.answered_accuracy, leftOut.answered_accuracy],
      ],
    ),
  );
  console.log(
    `\nms per item: titles ${titles.ms_per_item}, with examples ${withExamples.ms_per_item} (build ${titles.build_ms} / ${withExamples.build_ms} ms)`,
  );
  console.log(
    `\nmultilingual (${multilingual.items} hand-written titles, titles alone): top-1 ${multilingual.accuracy}, abstained ${multilingual.abstained}; ` +
      Object.entries(multilingual.by_language)
        .map(([l, a]) => `${l} ${a}`)
        .join(', '),
  );
  const groups = [...new Set(customTitles.map((t) => (t.group.startsWith('multilingual') ? 'multilingual' : t.group)))];
  const byGroup = (f: { by_group: Record<string, number> }, g: string): string => {
    const keys = Object.keys(f.by_group).filter((k) => k === g || k.startsWith(`${g}/`));
    return keys.length === 0 ? '-' : keys.map((k) => `${k.includes('/') ? `${k.split('/')[1]} ` : ''}${f.by_group[k]}`).join(' ');
  };
  console.log(`\ncustom_tree (titles into shops' own taxonomies, no examples; bridged through Google vs the tree's names alone):\n`);
  console.log(
    table(
      ['tree', 'titles', 'custom_tree top-1', 'direct (no bridge)', 'abstained', ...groups],
      [
        ...Object.entries(custom.trees).map(([name, f]) => [name, f.items, f.bridged, f.direct, f.abstained, ...groups.map((g) => byGroup(f, g))]),
        ['ALL', custom.overall.items, custom.overall.bridged, custom.overall.direct, '', ...groups.map(() => '')],
      ],
    ),
  );
  const parsed = await parsing;
  const pages = scoreLabelledPages(tax, labelledPages, parsed.docs, customTreesFile, argv.includes('--misses'), parsed);
  printPagesFigures(pages);
  return {
    suite: 'taxonomy',
    split,
    nodes: tax.nodes.size,
    examples: examples.length,
    titles,
    with_examples: withExamples,
    left_out: leftOut,
    multilingual,
    custom_tree: custom,
    pages,
  };
}
