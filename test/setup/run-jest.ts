/**
 * Runs Jest for `npm test` (docs/testing.md, "Parallel suites"), in two phases:
 * 1. every suite except those marked `@runs-alone`, on {@link testWorkers} Jest workers, each
 *    worker on a database of its own (`TEST_DATABASES`, read by test/setup/env.ts);
 * 2. the suites marked `@runs-alone` (they restart the PostgreSQL cluster every worker's database
 *    lives in, or otherwise need the machine to themselves), one after another.
 * Both phases run even when the first fails. Arguments after `npm test --` go to one plain Jest
 * run in band instead (e.g. `npm test -- test/api/items.test.ts`). Ends with the closing line
 * "tests: N passed, N failed, N skipped" over both phases (test/setup/summary-reporter.js), and
 * exits 1 when either phase failed.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { testWorkers } from './workers';

const ROOT = path.resolve(__dirname, '..', '..');
/** The marker comment of a suite that must run with nothing beside it. */
const RUNS_ALONE_MARKER = '@runs-alone';
const JEST = [`--max-old-space-size=12288`, path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js')];

/** The `*.test.ts` files under test/ and packages/*\/test that carry {@link RUNS_ALONE_MARKER}, sorted. */
function suitesRunningAlone(): string[] {
  const dirs = [path.join(ROOT, 'test'), ...fs.readdirSync(path.join(ROOT, 'packages')).map((p) => path.join(ROOT, 'packages', p, 'test'))];
  return dirs
    .filter((dir) => fs.existsSync(dir))
    .flatMap((dir) => (fs.readdirSync(dir, { recursive: true }) as string[]).map((f) => path.join(dir, f)))
    .filter((file) => file.endsWith('.test.ts') && !file.includes(`${path.sep}node_modules${path.sep}`))
    .filter((file) => fs.readFileSync(file, 'utf8').includes(RUNS_ALONE_MARKER))
    .sort();
}

/** One Jest run; returns its counts as the summary reporter wrote them, or null when it wrote none (Jest crashed). */
function jest(args: string[], env: Record<string, string>): { passed: number; failed: number; skipped: number; status: number } | null {
  const summary = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'jest-phase-')), 'summary.json');
  const run = spawnSync(process.execPath, [...JEST, ...args], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env, TEST_SUMMARY_FILE: summary } });
  try {
    if (!fs.existsSync(summary)) return null;
    const counts = JSON.parse(fs.readFileSync(summary, 'utf8')) as { passed: number; failed: number; skipped: number };
    return { ...counts, status: run.status ?? 1 };
  } finally {
    fs.rmSync(path.dirname(summary), { recursive: true, force: true });
  }
}

function main(): number {
  const extra = process.argv.slice(2);
  if (extra.length > 0) return spawnSync(process.execPath, [...JEST, '--runInBand', ...extra], { cwd: ROOT, stdio: 'inherit' }).status ?? 1;
  const workers = testWorkers();
  const alone = suitesRunningAlone();
  console.log(
    `[tests] phase 1: every suite but ${alone.length} on ${workers} Jest worker(s), a database each; phase 2: ${alone.map((f) => path.relative(ROOT, f)).join(', ')} alone`,
  );
  const shared = jest(workers > 1 ? [`--maxWorkers=${workers}`] : ['--runInBand'], {
    JEST_IGNORE_SUITES: JSON.stringify(alone),
    TEST_DATABASES: String(workers),
  });
  const solo = alone.length
    ? jest(['--runInBand', ...alone.map((f) => path.relative(ROOT, f))], { TEST_DATABASES: '1' })
    : { passed: 0, failed: 0, skipped: 0, status: 0 };
  const phases = [shared, solo];
  const sum = (k: 'passed' | 'failed' | 'skipped') => phases.reduce((n, p) => n + (p?.[k] ?? 0), 0);
  const crashed = phases.filter((p) => p === null).length;
  if (crashed) console.log(`!!! ${crashed} Jest phase(s) ended without a summary (see their output above)`);
  process.stdout.write(`tests: ${sum('passed')} passed, ${sum('failed') + crashed} failed, ${sum('skipped')} skipped\n`);
  return phases.every((p) => p !== null && p.status === 0) ? 0 : 1;
}

process.exit(main());
