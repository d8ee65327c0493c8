/**
 * The tool server's local diff (`execution_local_diff_compute`, src/mcp/diff.ts) of
 * 100,000 rows: a pulled-style JSONL snapshot of the 20-field bench items against a transformed CSV
 * (every cell text, arrays as JSON) where 10% of the rows change a price, 1% are dropped and 1,000
 * are new. Includes reading both files and writing staged_changes.jsonl and diff_details.json. No
 * service needed. Three runs each with the transformed file as CSV and as JSON Lines; prints one
 * JSON line. Target: ≤ 5 s.
 */
import './env';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { computeDiff } from '../packages/tool-server/src/diff';
import { csvCell } from '../packages/tool-server/src/table';
import { benchItem, FIELDS, loadAvg, median, since } from './lib';

const N = Number(process.env.BENCH_ITEMS ?? 100000);

/** Writes the before JSONL, the schema beside it and the after CSV; returns their paths. */
function writeInputs(dir: string): { before: string; after: string; afterJsonl: string } {
  const sys = (i: number) => ({
    __catalog_item_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    __entity_type: 'product',
    __parent_id: '',
    __current_version: 1,
  });
  const before = path.join(dir, 'catalog_bench.jsonl');
  const lines: string[] = [];
  for (let i = 0; i < N; i++) lines.push(JSON.stringify({ ...sys(i), ...benchItem(i) }));
  fs.writeFileSync(before, lines.join('\n') + '\n');
  fs.writeFileSync(
    path.join(dir, 'catalog_bench_schema.json'),
    JSON.stringify({ version: '1.0.0', schema_definition: { type: 'object', properties: FIELDS } }),
  );
  const columns = ['__catalog_item_id', '__entity_type', '__parent_id', '__current_version', ...Object.keys(FIELDS)];
  const rows: string[][] = [columns];
  const json: string[] = [];
  for (let i = 0; i < N; i++) {
    if (i % 100 === 99) continue;
    const r: Record<string, unknown> = { ...sys(i), ...benchItem(i) };
    if (i % 10 === 0) r.price = Number(r.price) + 1;
    rows.push(columns.map((c) => csvCell(r[c])));
    json.push(JSON.stringify(r));
  }
  for (let j = 0; j < 1000; j++) {
    rows.push(columns.map((c) => (c.startsWith('__') ? '' : csvCell(benchItem(N + j, 'NEW')[c]))));
    json.push(JSON.stringify(benchItem(N + j, 'NEW')));
  }
  const after = path.join(dir, 'after.csv');
  fs.writeFileSync(after, stringify(rows));
  fs.mkdirSync(path.join(dir, 'j'));
  const afterJsonl = path.join(dir, 'j', 'after.jsonl');
  fs.writeFileSync(afterJsonl, json.join('\n') + '\n');
  return { before, after, afterJsonl };
}

/** The bench in order: inputs, three CSV and JSONL diffs, the figures. */
async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-mcp-diff-'));
  const { before, after, afterJsonl } = writeInputs(dir);
  if (process.env.BENCH_KEEP_INPUTS) console.error(dir);
  const loadStart = loadAvg();
  const runs: number[] = [];
  const jsonlRuns: number[] = [];
  let out: Awaited<ReturnType<typeof computeDiff>> | null = null;
  const diffOf = (afterPath: string) =>
    computeDiff({ before_path: before, after_path: afterPath, key_field: '__catalog_item_id', deterministic_key_fields: [], allow_row_index_fallback: true });
  for (let run = 0; run < 3; run++) {
    let t0 = performance.now();
    out = await diffOf(after);
    runs.push(since(t0));
    t0 = performance.now();
    const j = await diffOf(afterJsonl);
    jsonlRuns.push(since(t0));
    if (j.diff_summary.rows_modified !== out.diff_summary.rows_modified) throw new Error('CSV and JSONL diffs differ');
  }
  const expected = { rows_added: 1000, rows_removed: N / 100, rows_modified: N / 10 };
  console.log(
    JSON.stringify({
      bench: 'mcp_local_diff',
      rows: N,
      runs_ms: runs.map(Math.round),
      median_ms: Math.round(median(runs)),
      jsonl_runs_ms: jsonlRuns.map(Math.round),
      jsonl_median_ms: Math.round(median(jsonlRuns)),
      diff_summary: out!.diff_summary,
      field_change_counts: out!.field_change_counts,
      counts_as_expected:
        out!.diff_summary.rows_added === expected.rows_added &&
        out!.diff_summary.rows_removed === expected.rows_removed &&
        out!.diff_summary.rows_modified === expected.rows_modified,
      target_ms: 5000,
      pass: median(runs) <= 5000,
      load_start: loadStart,
      load_end: loadAvg(),
    }),
  );
  if (!process.env.BENCH_KEEP_INPUTS) fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
