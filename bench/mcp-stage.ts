/**
 * Staging 100,000 changes end to end as `execution_catalog_stage_dataset` does it (src/mcp/stage.ts): diff of the pulled snapshot against a transform that changes every row's
 * price, validation (files, keys, counts, Ajv against the catalog schema, twice as upstream does),
 * one activity shell, 50 appends of 2,000 changes with batch keys (the service validates and
 * stages each chunk), pending-review. Against the real app on loopback (strict 20-field bench
 * catalog). Prints one JSON line with the phases. Target: ≤ 30 s.
 */
import './env';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiClient } from '../packages/tool-server/src/api-client';
import { pullSnapshot } from '../packages/tool-server/src/pull';
import { stageDataset } from '../packages/tool-server/src/stage';
import { createBenchCatalog, loadAvg, runBench, seedItems, since } from './lib';

const N = Number(process.env.BENCH_ITEMS ?? 100000);

runBench(async (b) => {
  const catalog = await createBenchCatalog(b, 'mcp stage');
  await seedItems(b, catalog, N);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-mcp-stage-'));
  const api = new ApiClient({ baseUrl: `${b.baseUrl}/api`, token: b.auth.Authorization.slice('Bearer '.length), organizationId: null, retryBaseMs: 400 });
  let t = performance.now();
  const pulled = await pullSnapshot(
    api,
    { catalog_id: catalog, output_dir: dir, format: 'jsonl', sample_size: null, page_size: 5000, max_concurrency: 8, prefer_raw: true, use_cache: false },
    dir,
    25_000,
  );
  const pullMs = since(t);
  const lines = fs.readFileSync(pulled.jsonl_path, 'utf8').trim().split('\n');
  fs.mkdirSync(path.join(dir, 'work'));
  const after = path.join(dir, 'work', 'after.jsonl');
  fs.writeFileSync(
    after,
    lines
      .map((l) => {
        const r = JSON.parse(l) as { price: number };
        r.price = Math.round((r.price * 1.1 + Number.EPSILON) * 100) / 100;
        return JSON.stringify(r);
      })
      .join('\n') + '\n',
  );
  const loadStart = loadAvg();
  t = performance.now();
  const out = await stageDataset(
    api,
    { batchSize: 2000, retries: 3, retryBaseMs: 400, workspace: dir },
    {
      catalog_id: catalog,
      before_path: pulled.jsonl_path,
      after_path: after,
      activity_message: 'bench: +10% on every price',
      key_field: '__catalog_item_id',
      deterministic_key_fields: [],
      allow_row_index_fallback: true,
      rules: { allow_row_deletes: true, max_change_ratio_warning: 1 },
      validate_only: false,
    },
  );
  const stageMs = since(t);
  const stored = await b.knex('staged_changes').where('activity_id', out.activity_id!).count<{ n: string }[]>({ n: '*' });
  const errors = await b.knex('staged_changes').where({ activity_id: out.activity_id!, status: 'error' }).count<{ n: string }[]>({ n: '*' });
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    bench: 'mcp_stage_dataset',
    changes: N,
    batch_size: 2000,
    batches: out.batches,
    pull_ms: Math.round(pullMs),
    stage_end_to_end_ms: Math.round(stageMs),
    phases_ms: out.timings_ms,
    staged_count: out.staged_count,
    stored_changes: Number(stored[0].n),
    error_changes: Number(errors[0].n),
    status: out.status,
    target_ms: 30000,
    pass: Number(stored[0].n) === N && Number(errors[0].n) === 0 && stageMs <= 30000,
    load_start: loadStart,
    load_end: loadAvg(),
  };
});
