/**
 * Flows' Python sandbox (docs/sandbox.md, "The Python sandbox"), without database or
 * Temporal: one confined interpreter per custom_code node.
 *
 * - cold start: `PythonTransformSession.start` (scratch directory, setpriv + prlimit + bwrap +
 *   python3, compile) plus the first page of 1 row, then close; `BENCH_RUNS` times (default 10);
 * - warm: a trivial transform (`dict(r, seen=True)` per row) over one 10,000-row page of 8-field
 *   rows on a started session, `BENCH_RUNS` times; and the same 10,000 rows as ten 1,000-row pages.
 *
 * Prints one JSON line: medians and slowest, the load average at start and end. Targets
 * (docs/benchmarks.md, "flow-sandbox"): cold start ≤ 2 s, warm 10,000 rows ≤ 3 s.
 */
import { loadConfig } from '../src/config';
import { PythonTransformSession } from '../src/sandbox/python-sandbox';
import { loadAvg, median, since } from './lib';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const TRIVIAL = 'def transform(rows):\n    return [dict(r, seen=True) for r in rows]\n';

function rows(n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({
    sku: `SKU-${i}`,
    title: `Everyday product number ${i} with a longer title`,
    price: 10 + (i % 100) / 4,
    currency: 'EUR',
    qty: i % 17,
    tags: ['a', 'b'],
    attrs: { color: 'blue', size: i % 5 },
    active: i % 2 === 0,
  }));
}

async function main(): Promise<void> {
  const loadStart = loadAvg();
  const options = { ...loadConfig().pythonSandbox, timeoutSeconds: 600 };
  const cold: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const session = await PythonTransformSession.start(TRIVIAL, options);
    await session.transform(rows(1));
    cold.push(since(t));
    await session.close();
  }
  const page = rows(10_000);
  const warm: number[] = [];
  const paged: number[] = [];
  const session = await PythonTransformSession.start(TRIVIAL, options);
  try {
    await session.transform(rows(10)); // first page: imports and caches warmed
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      const out = await session.transform(page);
      warm.push(since(t));
      if (out.rows.length !== 10_000 || out.rows[9_999].seen !== true) throw new Error('wrong result');
      const t2 = performance.now();
      for (let p = 0; p < 10; p++) await session.transform(page.slice(p * 1000, (p + 1) * 1000));
      paged.push(since(t2));
    }
  } finally {
    await session.close();
  }
  const ms = (xs: number[]) => ({ median_ms: Number(median(xs).toFixed(1)), max_ms: Number(Math.max(...xs).toFixed(1)) });
  console.log(
    JSON.stringify({
      bench: 'flow_sandbox',
      runs: RUNS,
      cold_start_1_row: ms(cold),
      warm_10k_rows_one_page: ms(warm),
      warm_10k_rows_ten_pages: ms(paged),
      targets: { cold_start_ms: 2000, warm_10k_ms: 3000 },
      load_start: loadStart,
      load_end: loadAvg(),
    }),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
