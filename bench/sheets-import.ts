/**
 * Import of a 100,000-row CSV into an empty 20-field strict catalog ("100,000 rows
 * ≥ 5,000 rows/s; a bad line never fails the others"): the file is the export layout of the
 * benchmark items (bench/lib.ts `benchItem`) with every 1,000th price made invalid. Measures the
 * API's staging (read, convert by the schema, insert the lines) and the catalogImportWorkflow
 * run on a dev server with an in-process worker, end to end; verifies the counters (created,
 * failed) and the items written. Prints one JSON line with the 1-minute load average at start
 * and end (the machine is shared).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stageImport } from '../src/services/sheets/import';
import { TemporalJobRunner } from '../temporal/client';
import { catalogImportWorkflowId } from '../src/contracts/workflows';
import { benchEngine, startJobBench } from './job-common';
import { benchItem, createBenchCatalog, FIELDS, loadAvg, since } from './lib';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 100000);

/**
 * The benchmark of this file's header with `N` rows, on its own job bench (database, Temporal dev
 * server, worker); returns its figures (the JSON line's fields).
 */
export async function measureSheetsImport(N: number = ITEMS): Promise<Record<string, unknown>> {
  const jb = await startJobBench(benchEngine('echo'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheets-import-'));
  try {
    const catalogId = await createBenchCatalog(jb, 'import bench');
    const columns = Object.keys(FIELDS);
    const q = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
    const lines = [columns.join(',')];
    for (let i = 0; i < N; i++) {
      const item = benchItem(i);
      if (i % 1000 === 999) item.price = 'n/a price';
      lines.push(columns.map((c) => q(typeof item[c] === 'string' ? (item[c] as string) : JSON.stringify(item[c]))).join(','));
    }
    const file = path.join(dir, 'items.csv');
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const load = loadAvg();
    const scope = { organizationId: jb.organizationId, principal: { kind: 'api_key' as const, id: 'bench', organizationIds: [jb.organizationId] } };
    const t0 = performance.now();
    const imp = await stageImport(jb.knex, scope, catalogId, { path: file, name: 'items.csv' }, {});
    const stageMs = since(t0);
    const runner = new TemporalJobRunner(jb.env.client, { taskQueue: jb.taskQueue, enrichConcurrency: 1 });
    const t1 = performance.now();
    await runner.startImport({ id: imp.id, organization_id: jb.organizationId, catalog_id: catalogId, total_lines: imp.total_lines });
    const progress = await jb.env.client.workflow.getHandle(catalogImportWorkflowId(imp.id)).result();
    const runMs = since(t1);
    const items = Number((await jb.knex('catalog_items').where('catalog_id', catalogId).count({ n: '*' }))[0].n);
    const totalMs = stageMs + runMs;
    return {
      bench: 'sheets_import',
      rows: N,
      mb: Math.round(fs.statSync(file).size / 1e6),
      stage_s: Number((stageMs / 1000).toFixed(1)),
      workflow_s: Number((runMs / 1000).toFixed(1)),
      rows_per_s: Math.round(N / (totalMs / 1000)),
      counters: progress,
      items_written: items,
      verified: items === N - N / 1000 && progress.counters.failed === N / 1000 && progress.counters.created === N - N / 1000,
      target_rows_per_s: 5000,
      pass: N / (totalMs / 1000) >= 5000,
      load_start: load,
      load_end: loadAvg(),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await jb.close();
  }
}

if (require.main === module)
  measureSheetsImport()
    .then((r) => console.log(JSON.stringify(r)))
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
