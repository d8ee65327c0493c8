/**
 * The `pages` section of `npm run eval -- taxonomy` (docs/evaluation-taxonomy.md, "Research pages:
 * what a matched page's breadcrumbs add"): category prediction on labelled product pages, from the
 * product's name alone and with the page as research evidence, into the Google product taxonomy
 * and into the five shops' own trees of `taxonomy-gold/custom-trees.json`.
 *
 * Gold: `taxonomy-gold/pages-google.json`, one entry per page of `zyte-product-extraction` (98)
 * and `pages/metascraper-shopping` (10) with the product's name as a catalog item would hold it
 * and its accepted Google nodes, written by hand before the classifier was run on these pages; a
 * page marked `excluded` is not scored. A page's accepted nodes in a shop tree are the tree's
 * mapped nodes of each accepted Google node's nearest mapped node at or above it (a map entry for
 * "Furniture > Chairs" covers an armchair); a page with none is outside the tree, not scored on it.
 *
 * Three readings per page, each through the engine's own path: the page parsed by
 * src/enrichment/parse/page.ts `parsePage`, matched to the item `{name}` by
 * src/enrichment/extract/identity.ts `matchPage` (a page the engine would reject lends nothing),
 * the evidence built by src/enrichment/taxonomy `categoryEvidence` (title, stated categories, the
 * matched page's product name, category, breadcrumb trail and description) and classified by
 * `classifyBridged`, as `applyTaxonomy` does:
 * - `name_alone`: the item `{name}` with no page;
 * - `page_no_breadcrumbs`: with the matched page, its breadcrumb trail removed (what the rest of
 *   the page gives);
 * - `with_page`: with the matched page as the research step hands it over.
 * An abstention is a miss; a prediction is right at or below an accepted node.
 */
import crypto from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { matchPage, type ItemIdentity } from '../../src/enrichment/extract/identity';
import { parsePage, type PageDoc } from '../../src/enrichment/parse/page';
import { itemIdentifiers, itemName } from '../../src/enrichment/research/plan';
import { categoryEvidence, classifyBridged, compileTaxonomy, type CompiledTaxonomy, type MatchedPage } from '../../src/enrichment/taxonomy';
import { table } from './files';
import { readCustomTrees, CUSTOM_TREES_FILE } from './taxonomy-custom';

/** One page of the gold file. */
export interface PageGold {
  /** `zyte-product-extraction` or `metascraper-shopping`. */
  set: string;
  /** The page's id in its set's `page-index.json`. */
  id: string;
  /** The product's name copied from the page, as a catalog item's title. */
  name: string;
  /** Accepted Google product taxonomy ids (absent when excluded). */
  google?: string[];
  why?: string;
  /** Why the page is not scored (not a product, or an ambiguous one). */
  excluded?: string;
}

/** A gold page with where its HTML is: `url` (the page's address) and `file` (absolute path). */
export interface LabelledPage extends PageGold {
  url: string;
  file: string;
}

/** Figures of one taxonomy (Google or a shop tree): pages scored and top-1 per reading. */
export interface PageTaxonomyFigures {
  pages: number;
  name_alone: number;
  page_no_breadcrumbs: number;
  with_page: number;
  /** Pages right with the page and wrong by name alone, and the reverse. */
  gained: number;
  lost: number;
  abstained: { name_alone: number; with_page: number };
}

/** The section's figures. */
export interface PagesFigures {
  /** Pages scored (not excluded) and excluded. */
  pages: number;
  excluded: number;
  /** Pages `matchPage` accepted for their item (the others lend no evidence, as in a job). */
  matched: number;
  /** Matched pages with a breadcrumb trail, by the markup it was read from; with a product `category`. */
  breadcrumbs: number;
  breadcrumb_origins: Record<string, number>;
  product_category: number;
  google: PageTaxonomyFigures;
  trees: Record<string, PageTaxonomyFigures>;
  /** Pages read from the parse cache; wall time of parsing (overlapped with the titles), and of scoring. */
  cached: number;
  parse_ms: number;
  score_ms: number;
  /** With `--misses`: one line per page wrong in any reading into the Google taxonomy. */
  misses?: string[];
}

/** The default gold file. */
export const PAGES_GOLD_FILE = path.join(__dirname, 'taxonomy-gold', 'pages-google.json');

/** Each gold set's folder under the labelled data folder. */
const SET_DIRS: Record<string, string> = {
  'zyte-product-extraction': 'zyte-product-extraction',
  'metascraper-shopping': path.join('pages', 'metascraper-shopping'),
};

const round = (x: number): number => Number(x.toFixed(3));

/**
 * The gold pages with their URL and HTML file (from each set's `page-index.json` under
 * `dataDir`), in the gold's order; `perSet` keeps the first N scored pages of each set (excluded
 * pages are kept, and not counted). Throws when a gold page is not in its set's index.
 */
export function readLabelledPages(dataDir: string, file: string = PAGES_GOLD_FILE, perSet = Infinity): LabelledPage[] {
  const gold = (JSON.parse(readFileSync(file, 'utf8')) as { pages: PageGold[] }).pages;
  const indexes = new Map<string, Map<string, { url: string; file: string }>>();
  const kept = new Map<string, number>();
  const out: LabelledPage[] = [];
  for (const g of gold) {
    const dir = path.join(dataDir, SET_DIRS[g.set] ?? g.set);
    let index = indexes.get(g.set);
    if (!index) {
      const rows = JSON.parse(readFileSync(path.join(dir, 'page-index.json'), 'utf8')) as Array<{ id: string; url: string; file: string }>;
      indexes.set(g.set, (index = new Map(rows.map((r) => [r.id, r]))));
    }
    const row = index.get(g.id);
    if (!row) throw new Error(`page ${g.set}/${g.id} of ${file} is not in ${dir}/page-index.json`);
    const n = kept.get(g.set) ?? 0;
    if (!g.excluded && n >= perSet) continue;
    if (!g.excluded) kept.set(g.set, n + 1);
    out.push({ ...g, url: row.url, file: path.join(dir, row.file) });
  }
  return out;
}

/** Parses `pages` on this thread with the engine's parser, in order. */
export function parsePagesHere(pages: Array<{ url: string; file: string }>): PageDoc[] {
  return pages.map((p) => parsePage(p.url, readFileSync(p.file)));
}

/**
 * Parses `pages` in a worker thread (./page-parse-worker.ts, loaded through tsx), so the parsing
 * overlaps the titles' scoring on a second core; falls back to {@link parsePagesHere} when the
 * worker cannot start or fails.
 */
export function parsePagesInWorker(pages: Array<{ url: string; file: string }>): Promise<PageDoc[]> {
  const entry = path.join(__dirname, 'page-parse-worker.ts');
  const data = pages.map(({ url, file }) => ({ url, file }));
  return new Promise<PageDoc[]>((resolve, reject) => {
    const worker = new Worker(`require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register(); require(${JSON.stringify(entry)});`, {
      eval: true,
      workerData: data,
    });
    worker.once('message', (docs: PageDoc[]) => {
      resolve(docs);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`page parser worker exited with ${code}`)));
  }).catch(() => parsePagesHere(pages));
}

/** The repository's root (this file is bench/eval/). */
const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** Every file under `dir`, recursively, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    .sort();
}

/**
 * The folder of cached parses for the engine as it is now: `<tmpdir>/ce-eval-page-docs/<key>`,
 * the key a SHA-1 of every file under src/enrichment and of package-lock.json (the parser's
 * code and its libraries' versions), so any change to either parses the pages again. Other keys'
 * folders are removed when a new one is made.
 */
function parseCacheDir(): string {
  const hash = crypto.createHash('sha1');
  for (const f of [...filesUnder(path.join(REPO_ROOT, 'src', 'enrichment')), path.join(REPO_ROOT, 'package-lock.json')]) {
    hash.update(path.relative(REPO_ROOT, f)).update('\0');
    if (existsSync(f)) hash.update(readFileSync(f));
  }
  const root = path.join(os.tmpdir(), 'ce-eval-page-docs');
  const key = hash.digest('hex').slice(0, 20);
  const dir = path.join(root, key);
  if (!existsSync(dir)) {
    if (existsSync(root)) for (const old of readdirSync(root)) rmSync(path.join(root, old), { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }
  return dir;
}

/**
 * The engine's parse of each page (src/enrichment/parse/page.ts `parsePage`, a JSON-serialisable
 * `PageDoc`), in order: read from the parse cache ({@link parseCacheDir}, keyed by URL and bytes)
 * when `cache`, the others parsed in a worker ({@link parsePagesInWorker}) and cached.
 * @returns the docs, how many came from the cache, and the wall time in ms
 */
export async function parsedPages(pages: Array<{ url: string; file: string }>, cache = true): Promise<{ docs: PageDoc[]; cached: number; ms: number }> {
  const t0 = performance.now();
  const dir = cache && pages.length > 0 ? parseCacheDir() : undefined;
  const keys = pages.map((p) =>
    dir ? path.join(dir, `${crypto.createHash('sha1').update(p.url).update('\n').update(readFileSync(p.file)).digest('hex')}.json`) : '',
  );
  const docs: Array<PageDoc | undefined> = keys.map((k) => (k && existsSync(k) ? (JSON.parse(readFileSync(k, 'utf8')) as PageDoc) : undefined));
  const todo = pages.map((p, i) => ({ ...p, i })).filter((p) => !docs[p.i]);
  const fresh = todo.length > 0 ? await parsePagesInWorker(todo) : [];
  todo.forEach((p, j) => {
    docs[p.i] = fresh[j];
    if (dir) writeFileSync(keys[p.i], JSON.stringify(fresh[j]));
  });
  return { docs: docs as PageDoc[], cached: pages.length - todo.length, ms: performance.now() - t0 };
}

/** True when `id` is one of `accepted` or below one. */
function within(tax: CompiledTaxonomy, id: string | undefined, accepted: Set<string>): boolean {
  const node = id ? tax.nodes.get(id) : undefined;
  return Boolean(node && node.path_ids.some((p) => accepted.has(p)));
}

/** A tree's accepted nodes for Google ids: the mapped nodes of each id's nearest mapped node at or above it. */
function treeAccepted(google: CompiledTaxonomy, map: Record<string, string[]>, ids: string[]): Set<string> {
  const out = new Set<string>();
  for (const id of ids) {
    const up = [...(google.nodes.get(id)?.path_ids ?? [id])].reverse();
    const hit = up.find((p) => map[p]);
    for (const n of hit ? map[hit] : []) out.add(n);
  }
  return out;
}

const READINGS = ['name_alone', 'page_no_breadcrumbs', 'with_page'] as const;
type Reading = (typeof READINGS)[number];

/** Tallies of one taxonomy. */
class Tally {
  pages = 0;
  right: Record<Reading, number> = { name_alone: 0, page_no_breadcrumbs: 0, with_page: 0 };
  abstained = { name_alone: 0, with_page: 0 };
  gained = 0;
  lost = 0;

  /** Scores one page: `predict(reading)` → [predicted node id or undefined, abstained]. */
  add(tax: CompiledTaxonomy, accepted: Set<string>, predict: (r: Reading) => { id?: string; abstain: boolean }): Record<Reading, boolean> {
    this.pages++;
    const ok = {} as Record<Reading, boolean>;
    for (const r of READINGS) {
      const p = predict(r);
      ok[r] = !p.abstain && within(tax, p.id, accepted);
      if (ok[r]) this.right[r]++;
      if (p.abstain && r !== 'page_no_breadcrumbs') this.abstained[r]++;
    }
    if (ok.with_page && !ok.name_alone) this.gained++;
    if (!ok.with_page && ok.name_alone) this.lost++;
    return ok;
  }

  figures(): PageTaxonomyFigures {
    const n = Math.max(1, this.pages);
    return {
      pages: this.pages,
      name_alone: round(this.right.name_alone / n),
      page_no_breadcrumbs: round(this.right.page_no_breadcrumbs / n),
      with_page: round(this.right.with_page / n),
      gained: this.gained,
      lost: this.lost,
      abstained: this.abstained,
    };
  }
}

/**
 * Scores `pages` (parsed as `docs`, same order) into `google` and each tree of `treesFile` (see
 * the module comment). `keepMisses`: also lists, per page wrong in any reading into Google, its
 * name, the readings' answers and the page's trail. `parse`: how many pages came from the parse cache and the
 * parsing's wall time, reported.
 */
export function scoreLabelledPages(
  google: CompiledTaxonomy,
  pages: LabelledPage[],
  docs: PageDoc[],
  treesFile: string = CUSTOM_TREES_FILE,
  keepMisses = false,
  parse: { cached: number; ms: number } = { cached: 0, ms: 0 },
): PagesFigures {
  const t0 = performance.now();
  const trees = readCustomTrees(treesFile).map((t) => ({ ...t, tax: compileTaxonomy(t.taxonomy), tally: new Tally() }));
  const googleTally = new Tally();
  const counts = { pages: 0, excluded: 0, matched: 0, breadcrumbs: 0, product_category: 0 };
  const origins: Record<string, number> = {};
  const misses: string[] = [];
  pages.forEach((page, i) => {
    if (page.excluded || !page.google) {
      counts.excluded++;
      return;
    }
    counts.pages++;
    const doc = docs[i];
    const item = { name: page.name };
    // The research step's identity and match (src/enrichment/engine.ts buildResult).
    const ids = itemIdentifiers(item);
    const identity: ItemIdentity = { name: itemName(item), brand: ids.brand, identifiers: [...ids.gtin, ...ids.mpn, ...ids.sku] };
    const m = matchPage(identity, doc);
    const matched: MatchedPage[] = m.kind === 'none' ? [] : [{ url: page.url, doc, product: m.product !== undefined ? doc.products[m.product] : undefined }];
    if (matched.length > 0) {
      counts.matched++;
      if (doc.breadcrumbs) {
        counts.breadcrumbs++;
        origins[doc.breadcrumbs.origin] = (origins[doc.breadcrumbs.origin] ?? 0) + 1;
      }
      if (matched[0].product?.properties.category) counts.product_category++;
    }
    const evidence: Record<Reading, ReturnType<typeof categoryEvidence>> = {
      name_alone: categoryEvidence(item, []),
      page_no_breadcrumbs: categoryEvidence(
        item,
        matched.map((p) => ({ ...p, doc: { ...p.doc, breadcrumbs: undefined } })),
      ),
      with_page: categoryEvidence(item, matched),
    };
    const answers: Partial<Record<Reading, string>> = {};
    const gold = new Set(page.google);
    const ok = googleTally.add(google, gold, (r) => {
      // A Google tree is not bridged (applyTaxonomy → classifyBridged, withinBridge).
      const p = classifyBridged(google, evidence[r], undefined, google);
      answers[r] = p ? `${p.abstain ? 'ABSTAIN ' : ''}${p.node.path.join(' > ')}` : 'none';
      return { id: p?.node.id, abstain: Boolean(p?.abstain) };
    });
    for (const tree of trees) {
      const accepted = treeAccepted(google, tree.map, page.google);
      if (accepted.size === 0) continue;
      tree.tally.add(tree.tax, accepted, (r) => {
        const p = classifyBridged(tree.tax, evidence[r], undefined, google);
        return { id: p?.node.id, abstain: Boolean(p?.abstain) };
      });
    }
    if (keepMisses && READINGS.some((r) => !ok[r])) {
      const gotten = READINGS.map((r) => `  ${ok[r] ? 'right' : 'WRONG'} ${r}: ${answers[r]}`).join('\n');
      const trail = doc.breadcrumbs ? `${doc.breadcrumbs.path.join(' > ')} (${doc.breadcrumbs.origin})` : 'none';
      misses.push(
        `${page.name} [${page.set}/${page.id.slice(0, 12)}; ${matched.length ? 'matched' : 'NOT MATCHED'}; trail: ${trail}]\n  gold: ${page.google.map((g) => google.nodes.get(g)?.path.join(' > ') ?? g).join(' | ')}\n${gotten}`,
      );
    }
  });
  return {
    ...counts,
    breadcrumb_origins: origins,
    google: googleTally.figures(),
    trees: Object.fromEntries(trees.map((t) => [t.name, t.tally.figures()])),
    cached: parse.cached,
    parse_ms: Math.round(parse.ms),
    score_ms: Math.round(performance.now() - t0),
    ...(keepMisses ? { misses } : {}),
  };
}

/** Prints the section's table (and, when kept, its misses). */
export function printPagesFigures(f: PagesFigures): void {
  if (f.pages + f.excluded === 0) return;
  for (const line of f.misses ?? []) console.log(line);
  const origins = Object.entries(f.breadcrumb_origins)
    .map(([o, n]) => `${o} ${n}`)
    .join(', ');
  console.log(
    `\npages (labelled product pages: product name alone vs with the page as research evidence; ${f.pages} pages, ${f.excluded} excluded, ` +
      `${f.matched} matched by the engine, ${f.breadcrumbs} of them with a breadcrumb trail (${origins || 'none'}), ${f.product_category} with a product category):\n`,
  );
  const row = (name: string, t: PageTaxonomyFigures): Array<string | number> => [
    name,
    t.pages,
    t.name_alone,
    t.page_no_breadcrumbs,
    t.with_page,
    `+${t.gained} / -${t.lost}`,
    `${t.abstained.name_alone} / ${t.abstained.with_page}`,
  ];
  console.log(
    table(
      ['taxonomy', 'pages', 'name alone', 'page, no breadcrumbs', 'with page', 'page vs name (pages)', 'abstained (name / page)'],
      [row('google', f.google), ...Object.entries(f.trees).map(([name, t]) => row(name, t))],
    ),
  );
  console.log(
    `\npages: parsed in ${f.parse_ms} ms (${f.cached} of ${f.pages + f.excluded} from the parse cache; in a worker, overlapping the titles), scored in ${f.score_ms} ms`,
  );
}
