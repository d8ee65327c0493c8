/**
 * Where one row's time goes with the real deterministic engine over the offline archive:
 * the engine alone (research + extract, no database), the sizes of what a row stores (evidence,
 * result), and the row service of src/services/enrichment/rows/rows.ts on batches of
 * `BENCH_BATCH_SIZE` rows (`enrichRow` row after row, as the processRows activity runs them) at
 * concurrency 1 and `BENCH_CONCURRENCY`, split into engine time and everything else (row reads,
 * JSON encoding, the write transactions), with this process's CPU per item. Then every stored
 * row is re-extracted from its stored evidence (document references resolved), which must give
 * the same result. No Temporal: this isolates the row service. Prints one JSON line.
 *
 *   npx tsx bench/row-cost.ts
 *   env: BENCH_ITEMS (400), BENCH_CONCURRENCY (8), BENCH_BATCH_SIZE (10)
 */
import './env';
import type { Knex } from 'knex';
import { loadConfig } from '../src/config';
import { createKnex, ensureDatabase, migrateLatest } from '../src/db';
import { createEngineFromConfig } from '../src/enrichment';
import type { EnrichmentEngine, Evidence } from '../src/enrichment/types';
import { PAGES_SCHEMA } from './eval/pages';
import { createOrganizationWithKey } from '../src/services/access/auth';
import { createEnrichmentJob } from '../src/services/enrichment/jobs/jobs';
import { enrichmentStorage } from '../src/services/enrichment/rows/artifacts';
import { createEnrichmentCaches } from '../src/services/enrichment/enrichment-caches';
import { loadEvidence } from '../src/services/enrichment/rows/evidence';
import { engineInput, enrichRow } from '../src/services/enrichment/rows/rows';
import { archiveItems } from '../test/fixtures/worker-cluster';
import { BENCH_DATABASE_URL } from './lib';
import { acceptingJobs } from '../test/fixtures/job-runners';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 400);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const BATCH = Number(process.env.BENCH_BATCH_SIZE ?? 10);

/** Percentile `p` (0..1) of `xs`. */
function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
}

/** JSON with object keys sorted at every level (jsonb does not keep key order). */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x,
  );
}

const round = (x: number, d = 1): number => Math.round(x * 10 ** d) / 10 ** d;

/** An engine that adds up the wall time spent inside `enrich`. */
function timed(engine: EnrichmentEngine): { engine: EnrichmentEngine; ms: () => number } {
  let ms = 0;
  return {
    ms: () => ms,
    engine: {
      ...engine,
      research: engine.research,
      extract: engine.extract,
      fetcher: engine.fetcher,
      async enrich(input) {
        const t = performance.now();
        try {
          return await engine.enrich(input);
        } finally {
          ms += performance.now() - t;
        }
      },
    },
  };
}

/** The benchmark, start to end (one function on purpose: it reads as the script of one run). */
async function main(): Promise<void> {
  await ensureDatabase(BENCH_DATABASE_URL);
  const knex: Knex = createKnex(BENCH_DATABASE_URL, { min: 0, max: 20 });
  await migrateLatest(knex);
  const orgs: string[] = [];
  const pages = archiveItems();
  const engine = createEngineFromConfig(loadConfig());
  try {
    // 1. The engine alone, one item at a time (warm-up: the first call builds the index).
    await engine.enrich({ item: pages[0], output_schema: PAGES_SCHEMA, options: { speed: 'fast', web_search: true } });
    const engineMs: number[] = [];
    const evidenceBytes: number[] = [];
    const resultBytes: number[] = [];
    const docsPerItem: number[] = [];
    const urls = new Map<string, number>();
    for (let i = 0; i < pages.length; i++) {
      const t = performance.now();
      const out = await engine.enrich({ item: pages[i], output_schema: PAGES_SCHEMA, options: { speed: 'fast', web_search: true } });
      engineMs.push(performance.now() - t);
      evidenceBytes.push(Buffer.byteLength(JSON.stringify(out.evidence)));
      resultBytes.push(Buffer.byteLength(JSON.stringify(out.result)));
      docsPerItem.push(out.evidence.documents.length);
      for (const d of out.evidence.documents as Array<{ url: string }>) urls.set(d.url, (urls.get(d.url) ?? 0) + 1);
    }

    // 2. The row service at concurrency 1 and CONCURRENCY (batches of BATCH rows, like the activity).
    const runs: Record<string, unknown> = {};
    for (const conc of [1, CONCURRENCY]) {
      const n = conc === 1 ? Math.min(ITEMS, 100) : ITEMS;
      const items = Array.from({ length: n }, (_, i) => pages[i % pages.length]);
      // Each run in its own organization: its evidence documents are all new to it.
      const org = await createOrganizationWithKey(knex, `row-cost bench c${conc} ${new Date().toISOString()}`);
      orgs.push(org.organizationId);
      const runScope = { organizationId: org.organizationId, principal: { kind: 'api_key' as const, id: 'bench', organizationIds: [org.organizationId] } };
      const job = await createEnrichmentJob({ knex, jobRunner: acceptingJobs }, runScope, {
        items,
        async_mode: true,
        output_schema: PAGES_SCHEMA,
        speed: 'fast',
      });
      const jobId = job.job.id;
      const t = timed(engine);
      const rowDeps = { knex, engine: t.engine, storage: enrichmentStorage(loadConfig()), caches: createEnrichmentCaches() };
      let next = 0;
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      await Promise.all(
        Array.from({ length: conc }, async () => {
          while (next < n) {
            // A batch row after row, as the processRows activity (activities/index.ts) runs it.
            const batch = Array.from({ length: Math.min(BATCH, n - next) }, () => next++);
            for (const rowIndex of batch) await enrichRow(rowDeps, jobId, rowIndex);
          }
        }),
      );
      const wallS = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(cpu0);
      const [agg] = await knex('enrichment_rows')
        .where({ job_id: jobId })
        .select(
          knex.raw("count(*) filter (where status <> 'pending')::int as done"),
          knex.raw('coalesce(sum(pg_column_size(evidence)), 0)::bigint as evidence_stored'),
          knex.raw('coalesce(sum(pg_column_size(result)), 0)::bigint as result_stored'),
        );
      const [docs] = await knex('enrichment_evidence_documents')
        .where({ organization_id: org.organizationId })
        .select(knex.raw('count(*)::int as n'), knex.raw('coalesce(sum(pg_column_size(doc)), 0)::bigint as bytes'));
      const jobRow = await knex('enrichment_jobs').where({ id: jobId }).first('completed_items');
      if (agg.done !== n || jobRow.completed_items !== n) throw new Error(`row service wrote ${agg.done} rows, counted ${jobRow.completed_items}, of ${n}`);
      const sumEngineS = t.ms() / 1000;
      // Re-extraction reads the stored evidence back (document references → parsed pages) and
      // must reproduce what the first extraction wrote.
      let reextractSame = 0;
      const stored = await knex('enrichment_rows as r')
        .join('enrichment_jobs as j', 'j.id', 'r.job_id')
        .where('r.job_id', jobId)
        .orderBy('r.row_index')
        .select('r.row_index', 'r.input', 'r.result', 'r.evidence', 'j.config');
      for (const row of stored) {
        const again = await engine.extract(
          engineInput(row.config, row.input, row.row_index),
          (await loadEvidence(knex, org.organizationId, row.evidence)) as Evidence,
        );
        if (
          canonical(again.result.after_data) === canonical(row.result.after_data) &&
          canonical(again.result.review_info) === canonical(row.result.review_info)
        )
          reextractSame++;
      }
      runs[`c${conc}`] = {
        items: n,
        items_per_s: round(n / wallS),
        engine_ms_per_item: round(t.ms() / n),
        // Wall time per item not spent in the engine (per worker slot).
        other_ms_per_item: round(((wallS * conc - sumEngineS) * 1000) / n),
        stored_evidence_kb_per_row: round(Number(agg.evidence_stored) / n / 1024),
        stored_result_kb_per_row: round(Number(agg.result_stored) / n / 1024),
        stored_documents: docs.n,
        stored_documents_kb: round(Number(docs.bytes) / 1024),
        // This process's CPU per item (user + system): near 1000 / items_per_s means one Node thread is the bound.
        node_cpu_ms_per_item: round((cpu.user + cpu.system) / 1000 / n),
        reextract_from_stored_evidence_same_result: `${reextractSame}/${stored.length}`,
      };
    }
    console.log(
      JSON.stringify({
        bench: 'row-cost',
        engine: 'archive',
        batch_size: BATCH,
        engine_alone_ms_per_item: {
          p50: round(pct(engineMs, 0.5)),
          p90: round(pct(engineMs, 0.9)),
          mean: round(engineMs.reduce((a, b) => a + b, 0) / engineMs.length),
        },
        evidence_json_kb_per_item: {
          p50: round(pct(evidenceBytes, 0.5) / 1024),
          p90: round(pct(evidenceBytes, 0.9) / 1024),
          max: round(Math.max(...evidenceBytes) / 1024),
        },
        result_json_kb_per_item: { p50: round(pct(resultBytes, 0.5) / 1024), max: round(Math.max(...resultBytes) / 1024) },
        documents_per_item: round(docsPerItem.reduce((a, b) => a + b, 0) / docsPerItem.length),
        distinct_document_urls: urls.size,
        row_service: runs,
      }),
    );
  } finally {
    if (orgs.length) await knex('organizations').whereIn('id', orgs).delete();
    await knex.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
