/**
 * `npm run bench [-- --size small|full] [--only a,b] [--compare bench/baseline.json] [--write-baseline [file]]`:
 * runs the headline benchmarks (their own files' exported functions) in one process on the bench
 * database (bench/lib.ts `BENCH_DATABASE_URL`, dropped and created again first: every run starts
 * empty, the kept catalogs of the search benches included), each after settling the database ({@link settle}:
 * the earlier benches' writes vacuumed and checkpointed) and measuring the physical limits it is
 * compared with (bench/limits.ts) in the same run and database, and prints ONE table and one JSON
 * line per figure (bench/figures.ts). `small` (default) takes a few minutes; `full` runs the
 * headline sizes that finish within 15 minutes on 2 cores (see docs/benchmarks.md for sizes).
 *
 * `--compare <file>` exits with code 1 when a figure's ratio falls more than 25 % below the
 * baseline's (or the baseline has a figure this run did not measure); `--write-baseline` writes
 * this run as the baseline (command, date, hardware, load). A bench that fails is reported as
 * missing and the run goes on; the run then exits with code 2.
 */
import './env';
import fs from 'node:fs';
import os from 'node:os';
import { measureBulkUpsert } from './bulk-upsert';
import { measureConsoleGrid } from './console-grid';
import { measureFeed } from './feed';
import { compareWithBaseline, table, toFigure, type Baseline, type Figure, type Measured } from './figures';
import { loadAvg, recreateBenchDatabase, startBench, type Bench } from './lib';
import { measureLimits, type LimitName } from './limits';
import { measureRawPull } from './raw-pull';
import { measureResearchArchive } from './research-archive';
import { measureReviewApply } from './review-apply';
import { churnFigures, searchChurnBench as measureSearchChurn } from './search-churn';
import { measureSearchList } from './search-list';
import { measureSheetsExport } from './sheets-export';
import { measureSheetsImport } from './sheets-import';
import { measureSnapshotRestore } from './snapshot-restore';
import { measureTextJob } from './text-job';

/**
 * Sizes per `--size`: items of the catalog benches, rows of the CSV import (100,000 at both
 * sizes: its target is a rate for a 100,000-row file; a smaller file's rate carries the
 * workflow's fixed start and end more heavily), items of the restore (at least 50,000: smaller
 * restores update the word index in place, larger ones leave it behind and stay HOT, the path a
 * regression must be seen on), the search catalog, the catalog searched after churn (a tenth of
 * it rewritten by each write; more than 100,000 so that the offset 100,000 page has rows), the grid catalog, archive pages and look-ups,
 * text-job examples and items, feed catalog items.
 */
const SIZES = {
  small: {
    items: 20_000,
    import: 100_000,
    restore: 50_000,
    search: 100_000,
    churn: 110_000,
    grid: 50_000,
    pages: 2_000,
    lookups: 100,
    text: 200,
    feed: 20_000,
  },
  full: {
    items: 100_000,
    import: 100_000,
    restore: 100_000,
    search: 200_000,
    churn: 200_000,
    grid: 200_000,
    pages: 20_000,
    lookups: 400,
    text: 1000,
    feed: 100_000,
  },
};
type Size = (typeof SIZES)[keyof typeof SIZES];

type Obj = Record<string, unknown>;
const num = (o: unknown, ...path: string[]): number => {
  const v = path.reduce<unknown>((x, k) => (x as Obj | undefined)?.[k], o);
  if (typeof v !== 'number') throw new Error(`figure ${path.join('.')} missing: ${JSON.stringify(o).slice(0, 300)}`);
  return v;
};
const ok = (r: Obj, ...keys: string[]) => {
  for (const k of keys) if (r[k] !== true) throw new Error(`${String(r.bench)}: ${k} is ${String(r[k])}`);
};

/**
 * A builder of time figures (ms) read from a bench's result `r` (`key`), each compared with what
 * `limit` needs for `rows` rows and held to a maximum in ms.
 */
const timeFigures =
  (r: Obj, limit: LimitName, rows: number) =>
  (figure: string, key: string, max: number): Measured => ({ figure, value: num(r, key), unit: 'ms', limit, rows, target: { max } });

/** One headline bench: its name, the rows its limits are measured on, and how its figures are read. */
interface Headline {
  name: string;
  limitRows(s: Size): number;
  run(b: Bench, s: Size): Promise<Measured[]>;
}

const HEADLINES: Headline[] = [
  {
    name: 'bulk_upsert',
    limitRows: (s) => s.items,
    async run(b, s) {
      const r = await measureBulkUpsert(b, s.items);
      return [
        { figure: 'bulk_create', value: num(r, 'create_items_per_s'), unit: 'items/s', limit: 'copy_in', target: { min: 5000 } },
        { figure: 'bulk_update', value: num(r, 'update_items_per_s'), unit: 'items/s', limit: 'raw_update' },
        // Where a create's time goes (docs/benchmarks.md "Bulk upsert by stage"): ms per 1,000 items, beside COPY's time for 1,000 rows.
        ...Object.entries(r.create_stages_ms_per_1000 as Record<string, number>)
          .filter(([stage]) => stage !== 'request_total')
          .map(([stage, ms]): Measured => ({ figure: `bulk_create_${stage}`, value: ms, unit: 'ms', limit: 'copy_in', rows: 1000 })),
      ];
    },
  },
  {
    name: 'raw_pull',
    limitRows: (s) => s.items,
    async run(b, s) {
      const r = await measureRawPull(b, s.items);
      ok(r, 'every_id_exactly_once');
      return [{ figure: 'raw_pull', value: num(r, 'rows_per_s_median'), unit: 'rows/s', limit: 'keyset_pull', target: { min: 20000 } }];
    },
  },
  {
    // Before the grid: the grid's field indexes are expression indexes over `data` kept with its
    // catalog, and any of them makes every `data` update of the table non-HOT (docs/benchmarks.md).
    name: 'snapshot_restore',
    limitRows: (s) => s.restore,
    async run(b, s) {
      const r = await measureSnapshotRestore(b, s.restore);
      ok(r, 'restored_exactly');
      // Beside the table: how many of each restore's row updates stayed heap-only, which its time follows.
      console.error(`[bench] snapshot_restore: heap-only updates ${JSON.stringify(r.hot_updates)}`);
      const t = timeFigures(r, 'raw_update', s.restore);
      return [
        { figure: 'snapshot', value: num(r, 'snapshot_ms'), unit: 'ms', limit: 'copy_in', rows: s.restore, target: { max: 5000 } },
        t('restore_12pct_changed', 'restore_12pct_changed_ms', 2500),
        t('restore_back_to_safety', 'restore_back_to_safety_ms', 2500),
        t('restore_all_changed', 'restore_all_changed_ms', 4000),
      ];
    },
  },
  {
    name: 'review_apply',
    limitRows: (s) => s.items,
    async run(b, s) {
      const r = await measureReviewApply(b, s.items);
      ok(r, 'ok');
      return [{ figure: 'apply', value: num(r, 'apply_ms'), unit: 'ms', limit: 'raw_update', rows: s.items, target: { max: 10000 } }];
    },
  },
  {
    name: 'sheets_export',
    limitRows: (s) => s.items,
    async run(b, s) {
      const r = await measureSheetsExport(b, s.items);
      return (['csv', 'xlsx'] as const).map((f) => ({
        figure: `export_${f}`,
        value: num(r, f, 'rows_per_s_median'),
        unit: 'rows/s',
        limit: 'keyset_pull' as const,
        target: { min: 20000 },
      }));
    },
  },
  {
    name: 'sheets_import',
    limitRows: (s) => s.import,
    async run(_b, s) {
      const r = await measureSheetsImport(s.import);
      ok(r, 'verified');
      return [{ figure: 'import_csv', value: num(r, 'rows_per_s'), unit: 'rows/s', limit: 'copy_in', target: { min: 5000 } }];
    },
  },
  {
    // A Google TSV feed run through its workflow; the full run reads every item, so its rate is
    // compared with the keyset pull of the same rows; readiness and the delta read only changes.
    name: 'feed',
    limitRows: (s) => s.feed,
    async run(_b, s) {
      const r = await measureFeed(s.feed);
      ok(r, 'counts_ok', 'delta_ok');
      const time = timeFigures(r, 'keyset_pull', s.feed);
      return [
        { figure: 'feed_full_tsv', value: num(r, 'full_items_per_s'), unit: 'items/s', limit: 'keyset_pull', target: { min: 20000 } },
        time('feed_readiness_p95', 'readiness_p95_ms', 300),
        time('feed_delta_1000_changed', 'delta_ms', 5000),
      ];
    },
  },
  {
    name: 'search_list',
    limitRows: (s) => s.items,
    async run(b, s) {
      const r = await measureSearchList(b, s.search);
      ok(r, 'exact_totals', 'cache_invalidated_by_write');
      const out: Measured[] = [];
      for (const temp of ['warm', 'cold'] as const)
        for (const kind of ['identifier', 'phrase', 'broad'])
          out.push({
            figure: `search_${kind}_${temp}_p95`,
            value: num(r, `${temp}_kinds`, kind, 'p95_ms'),
            unit: 'ms',
            limit: 'gin_posting',
            target: { max: 100 },
          });
      // A deep offset (a tenth of the catalog) within 1 s; past 10,000 the answer also advises the cursor (docs/large-catalogs.md).
      out.push({ figure: 'search_broad_deep_offset_p50', value: num(r, 'broad_deep_offset_p50_ms'), unit: 'ms', limit: 'gin_posting', target: { max: 1000 } });
      out.push({
        figure: 'search_sorted_first_page_p50',
        value: num(r, 'broad_sorted_by_price_p50_ms'),
        unit: 'ms',
        limit: 'gin_posting',
        target: { max: 300 },
      });
      return out;
    },
  },
  {
    name: 'search_churn',
    limitRows: (s) => s.churn,
    async run(b, s) {
      const r = await measureSearchChurn(b, { items: s.churn, churnItems: Math.round(s.churn / 10), rounds: 5, coldRounds: 2 });
      return churnFigures(r);
    },
  },
  {
    name: 'console_grid',
    limitRows: (s) => s.items,
    async run(b, s) {
      const r = await measureConsoleGrid(b, s.grid);
      return [
        { figure: 'grid_first_page_p95', value: num(r, 'p95_first_ms'), unit: 'ms', limit: 'gin_posting', target: { max: 300 } },
        { figure: 'grid_deep_page_p95', value: num(r, 'p95_deep_ms'), unit: 'ms', limit: 'gin_posting', target: { max: 300 } },
      ];
    },
  },
  {
    name: 'research_archive',
    limitRows: () => 1000,
    async run(b, s) {
      const r = await measureResearchArchive(b, s.pages, s.lookups);
      return [
        { figure: 'archive_index', value: num(r, 'pages_per_s'), unit: 'pages/s', limit: 'html_parse', target: { min: 200 } },
        { figure: 'archive_lookup_p95', value: num(r, 'search_and_fetch_ms', 'p95'), unit: 'ms', limit: 'gin_posting', target: { max: 50 } },
      ];
    },
  },
  {
    name: 'text_job',
    limitRows: () => 1000,
    async run(_b, s) {
      const r = await measureTextJob(s.text, s.text);
      return [{ figure: 'text_job', value: num(r, 'items_per_s'), unit: 'items/s', limit: 'html_parse' }];
    },
  },
];

/**
 * Brings the bench database to a settled state before a headline measures, so that one bench does
 * not pay for the previous one's writes: `VACUUM (ANALYZE)` of the whole database (what
 * autovacuum would do some time later, now and synchronously: dead rows of the earlier benches,
 * visibility map, planner statistics, GIN pending lists) and a `CHECKPOINT` (their dirty pages
 * written now, not during the next measurement). The churn bench still measures right after its
 * own writes. A step the connection may not run (CHECKPOINT needs `pg_checkpoint` or superuser)
 * is reported, not skipped silently.
 * @returns the time it took, ms, and the steps refused with their errors
 */
async function settle(b: Bench): Promise<{ ms: number; refused: string[] }> {
  const t = performance.now();
  const refused: string[] = [];
  for (const step of ['VACUUM (ANALYZE)', 'CHECKPOINT']) {
    try {
      await b.knex.raw(step);
    } catch (err) {
      refused.push(`${step}: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  return { ms: Math.round(performance.now() - t), refused };
}

/** Parsed command line. */
interface Args {
  size: keyof typeof SIZES;
  only: string[] | null;
  compare: string | null;
  writeBaseline: string | null;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { size: 'small', only: null, compare: null, writeBaseline: null };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i];
    if (v === '--size') {
      const s = argv[++i];
      if (s !== 'small' && s !== 'full') throw new Error('--size small|full');
      a.size = s;
    } else if (v === '--only') a.only = argv[++i].split(',');
    else if (v === '--compare') a.compare = argv[++i];
    else if (v === '--write-baseline') a.writeBaseline = argv[i + 1] && !argv[i + 1].startsWith('--') ? argv[++i] : 'bench/baseline.json';
    else throw new Error(`unknown option ${v}`);
  }
  return a;
}

/** The machine, for the baseline: CPU model, cores, memory, PostgreSQL version. */
async function hardware(b: Bench): Promise<string> {
  const pg = (await b.knex.raw('SHOW server_version')).rows[0].server_version as string;
  return `${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, ${Math.round(os.totalmem() / 1e9)} GB, PostgreSQL ${pg}, Node ${process.version}`;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const size = SIZES[args.size];
  const cores = os.cpus().length;
  await recreateBenchDatabase();
  const b = await startBench();
  const loadStart = loadAvg();
  const figures: Figure[] = [];
  const missing: string[] = [];
  let hw = '';
  try {
    hw = await hardware(b);
    // The grid bench's field keys stay: they live in catalog_sort_keys, not in an index over
    // `data`, so the other benches' updates stay heap-only (docs/console.md "Grid field indexes").
    for (const h of HEADLINES.filter((x) => !args.only || args.only.includes(x.name))) {
      try {
        const settled = await settle(b);
        console.error(`[bench] ${h.name}: database settled in ${settled.ms} ms${settled.refused.map((r) => `; refused ${r}`).join('')}`);
        const limits = await measureLimits(b, Math.min(h.limitRows(size), 100_000));
        const measured = await h.run(b, size);
        const load = loadAvg();
        for (const m of measured) {
          const f = toFigure(m, limits, load, cores);
          figures.push(f);
          console.log(JSON.stringify(f));
        }
      } catch (err) {
        missing.push(`${h.name}: ${(err as Error).message.split('\n')[0].slice(0, 200)}`);
        console.error(`[bench] ${h.name} failed:`, err);
      }
    }
  } finally {
    await b.close();
  }
  const loadEnd = loadAvg();
  const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();
  console.log(`\n${command}\n${new Date().toISOString()} · ${hw} · load ${loadStart} → ${loadEnd}\n`);
  console.log(table(figures));
  if (missing.length) console.log(`\nmissing:\n${missing.map((m) => `- ${m}`).join('\n')}`);
  let code = missing.length ? 2 : 0;
  if (args.compare) {
    const cmp = compareWithBaseline(args.compare, figures);
    // With --only, the baseline's figures of the benches not selected are not missing.
    const bad = cmp.filter((c) => c.verdict === 'regressed' || (c.verdict === 'missing' && !args.only));
    for (const c of bad)
      console.log(
        `${c.verdict}: ${c.figure} ratio ${c.ratio ?? '-'} (baseline ${c.baseline_ratio})` +
          (c.moved ? `; ${c.moved === 'value' ? 'the figure is worse' : 'the figure held or improved, its limit improved more'}: ${c.detail}` : ''),
      );
    console.log(bad.length ? `\ncompare: ${bad.length} figure(s) below the baseline` : `\ncompare: every ratio within 25 % of ${args.compare}`);
    if (bad.length) code = 1;
  }
  if (args.writeBaseline) {
    const baseline: Baseline = { command, date: new Date().toISOString(), hardware: hw, size: args.size, load: { start: loadStart, end: loadEnd }, figures };
    fs.writeFileSync(args.writeBaseline, `${JSON.stringify(baseline, null, 2)}\n`);
    console.log(`baseline written to ${args.writeBaseline}`);
  }
  return code;
}

main()
  .then((code) => process.exit(code))
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
