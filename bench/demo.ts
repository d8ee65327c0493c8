/**
 * `npm run demo`: against the running service (`npm start`), submits the labelled dev pages'
 * items (tier A: name + brand, docs/evaluation.md "Product pages") as ONE async enrichment job over HTTP, shows its
 * progress while it runs, then prints the score table against the human labels and a few
 * results with their sources.
 *
 * Options: `--data <folder>` (zyte-product-extraction layout; default ../shared/data/…),
 * `--api <url>` (default http://127.0.0.1:$PORT), `--key <api key>` (default $API_KEY or the
 * key `npm start` saved in .data/dev-api-key), `--speed <tier>` (default fast).
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, REPO_ROOT } from '../src/config';
import { count, FieldCounts, prf } from './eval/metrics';
import { options, readJson, table } from './eval/files';
import { correct, PAGE_FIELDS, pageItem, PAGES_SCHEMA } from './eval/pages';
import { enrichmentWorkflowId } from '../src/contracts/workflows';
import { createCatalogClient } from '@catalog-enrichment/client';

type PageField = (typeof PAGE_FIELDS)[number];

/** One result of the job (the parts the demo prints and scores). */
interface DemoResult {
  original_data: Record<string, unknown>;
  after_data: Record<string, unknown> & { sources: Record<string, string[] | undefined>; source_explanations: Record<string, string> };
  review_info: { field_confidence: Record<string, string> };
}

/** The job as `POST /public/enrich` and `GET /public/enrich/:id` answer it. */
interface DemoJob {
  job_id: string;
  status: string;
  total_items: number;
  completed_items: number;
  successful: number;
  credits_used: number;
  results: DemoResult[];
}

/** The request's `speed` (the service answers 422 for another; docs/enrich-options.md). */
type EnrichSpeed = 'cheap' | 'fast' | 'medium' | 'deep' | 'slow' | 'ultra_slow';

/** The answer of a typed-client call read as `T` (the route's documented response); throws naming the status otherwise. */
async function answer<T>(call: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new Error(`${response.url} → ${response.status} ${JSON.stringify(error ?? {})}`);
  return data as T;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const config = loadConfig();
  const data = options(argv, '--data')[0] ?? path.resolve(REPO_ROOT, '..', 'shared', 'data', 'zyte-product-extraction');
  const base = (options(argv, '--api')[0] ?? config.publicUrl).replace(/\/$/, '');
  const keyFile = path.join(config.dataDir, 'dev-api-key');
  const key = options(argv, '--key')[0] ?? process.env.API_KEY ?? (fs.existsSync(keyFile) ? fs.readFileSync(keyFile, 'utf8').trim() : '');
  if (!key) throw new Error('no API key: start the service with `npm start` first, or pass --key');
  const speed = options(argv, '--speed')[0] ?? 'fast';

  const index = readJson(path.join(data, 'page-index.json')) as Array<Parameters<typeof pageItem>[0]>;
  const gold = readJson(path.join(data, 'ground-truth.json')) as Record<string, Record<string, string[] | string>>;
  const pages = index.filter((p) => gold[p.id]);
  const items = pages.map((p) => pageItem(p, gold[p.id], 'A'));
  console.log(`Submitting ${items.length} real products (tier A: name + brand) to ${base} as one async job...`);
  const started = Date.now();
  const api = createCatalogClient({ baseUrl: base, token: key });
  const job = await answer<DemoJob>(
    api.POST('/api/public/enrich', { body: { items, output_schema: PAGES_SCHEMA, speed: speed as EnrichSpeed, async_mode: true } }),
  );
  console.log(`job ${job.job_id}: running (Temporal workflow ${enrichmentWorkflowId(job.job_id)})`);

  let poll = job;
  while (poll.status === 'running') {
    await new Promise((r) => setTimeout(r, 1000));
    poll = await answer<DemoJob>(api.GET('/api/public/enrich/{job_id}', { params: { path: { job_id: job.job_id }, query: { page_size: 1 } } }));
    const width = 40;
    const done = Math.round((poll.completed_items / poll.total_items) * width);
    process.stdout.write(`\r[${'#'.repeat(done)}${'.'.repeat(width - done)}] ${poll.completed_items}/${poll.total_items} items, ${poll.successful} successful`);
  }
  const seconds = (Date.now() - started) / 1000;
  console.log(`\njob ${poll.status} in ${seconds.toFixed(1)} s; credits used: ${poll.credits_used}`);
  const final = await answer<DemoJob>(
    api.GET('/api/public/enrich/{job_id}', { params: { path: { job_id: job.job_id }, query: { page: 1, page_size: 1000 } } }),
  );

  const counts = Object.fromEntries(PAGE_FIELDS.map((f) => [f, { tp: 0, fp: 0, fn: 0 }])) as Record<PageField, FieldCounts>;
  let cited = 0;
  let citedOwn = 0;
  final.results.forEach((result, i) => {
    const labels = gold[pages[i].id];
    for (const field of PAGE_FIELDS) {
      const g = ([] as string[])
        .concat(labels[field] ?? [])
        .map(String)
        .filter(Boolean);
      const goldEff = field === 'availability' && g.length === 0 ? ['InStock'] : g;
      const value = result.after_data[field] ?? (field === 'availability' ? 'InStock' : undefined);
      count(counts[field], value !== undefined, value !== undefined && correct(field, value, goldEff), goldEff.length > 0);
      const src: string | undefined = result.after_data.sources?.[field]?.[0];
      if (src && !src.startsWith('INPUT:')) {
        cited++;
        if (src === pages[i].url) citedOwn++;
      }
    }
  });
  console.log('\nScore against the human labels (upstream benchmark rules):');
  console.log(
    table(
      ['field', 'precision', 'recall', 'F1'],
      PAGE_FIELDS.map((f) => {
        const m = prf(counts[f]);
        return [f, m.precision, m.recall, m.f1];
      }),
    ),
  );
  console.log(
    `source precision (cited URL is the item's own page): ${(citedOwn / Math.max(1, cited)).toFixed(4)}; ${(final.results.length / seconds).toFixed(1)} items/s end to end`,
  );

  console.log('\nA few results with their sources:');
  for (const result of final.results.slice(0, 3)) {
    const after = result.after_data;
    console.log(`\n• ${result.original_data.name}`);
    for (const field of PAGE_FIELDS) {
      if (after[field] === undefined) continue;
      console.log(
        `  ${field.padEnd(12)} ${JSON.stringify(after[field]).padEnd(24)} ${after.sources[field]?.join(', ')}\n  ${''.padEnd(12)} ↳ ${after.source_explanations[field]} (confidence ${result.review_info.field_confidence[field]})`,
      );
    }
  }
}

main().catch((err) => {
  console.error(err.message ?? err);
  process.exit(1);
});
