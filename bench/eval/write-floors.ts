/**
 * `npm run eval:floors` (docs/evaluation.md, "Guarding the figures"): measures the pages suite
 * under leave-one-site-family-out (`npm run eval -- pages ... --tier A --cv family`, the labelled
 * dev pages and the extra corpus under ../shared/data), prints each field's LOFO F1 beside its
 * floor, and with `--write` appends to bench/eval/floors-history.json a floor for every field
 * that has none or whose floor the figure raises (bench/eval/floors.ts proposeFloors), with the
 * commit measured (`git rev-parse --short HEAD`, `+dirty` when the tree has changes).
 * `--lower <field,...>` also resets those fields' floors downwards (a deliberate trade);
 * `--from <file>` reads the figures from a saved run's output (its last line) instead of running
 * the suite; `--note <text>` is kept with the entries. Exit code 1 when a field is under its floor
 * (without `--write`) or the suite fails.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { currentFloors, FLOOR_HISTORY, proposeFloors, readFloorHistory, withEntries } from './floors';
import { options, table } from './files';
import { runPagesSuite } from './pages';

const ROOT = path.resolve(__dirname, '../..');

/** The commit measured: short HEAD, `+dirty` when the engine or the eval (src/, bench/eval/) differ from it in the working tree. */
function commitMeasured(): string {
  const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim();
  // Only changes to what the figures depend on (the engine, the eval) make the measure differ from the commit.
  const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'src', 'bench/eval', ':!bench/eval/floors-history.json'], {
    cwd: ROOT,
  });
  const dirty = changed.toString().trim() !== '';
  return dirty ? `${head}+dirty` : head;
}

/** The pages suite's figures: from a saved run's last stdout line (`--from`), else a fresh LOFO run. */
async function figures(argv: string[]): Promise<Record<string, unknown>> {
  const from = options(argv, '--from')[0];
  if (from) {
    const lines = fs.readFileSync(from, 'utf8').trim().split('\n');
    return JSON.parse(lines[lines.length - 1]) as Record<string, unknown>;
  }
  const shared = path.resolve(ROOT, '../shared/data');
  return runPagesSuite([
    '--data',
    path.join(shared, 'zyte-product-extraction'),
    '--corpus',
    path.join(shared, 'pages/metascraper-shopping'),
    '--tier',
    'A',
    '--cv',
    'family',
  ]);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const figs = await figures(argv);
  if (figs.cv !== 'family') throw new Error('eval:floors: the figures must come from a --cv family run');
  const measured = Object.fromEntries(Object.entries(figs.fields as Record<string, { f1: number }>).map(([f, v]) => [f, v.f1]));
  const history = readFloorHistory();
  const floors = currentFloors(history);
  const lower = new Set(options(argv, '--lower').flatMap((f) => f.split(',')));
  const note = options(argv, '--note')[0];
  const proposed = proposeFloors(history, measured, { commit: commitMeasured(), date: new Date().toISOString().slice(0, 10), note }, lower);
  console.log(
    table(
      ['field', 'LOFO F1', 'floor', 'status', 'proposed floor'],
      Object.entries(measured).map(([f, v]) => [
        f,
        v.toFixed(3),
        floors[f]?.toFixed(2) ?? '—',
        floors[f] === undefined ? 'no floor' : v >= floors[f] ? 'ok' : 'UNDER',
        proposed[f]?.floor.toFixed(2) ?? '',
      ]),
    ),
  );
  if (argv.includes('--write')) {
    fs.writeFileSync(FLOOR_HISTORY, JSON.stringify(withEntries(history, proposed), null, 2) + '\n');
    console.log(`wrote ${path.relative(process.cwd(), FLOOR_HISTORY)}: ${Object.keys(proposed).length} new floor(s)`);
  } else if (Object.entries(measured).some(([f, v]) => floors[f] !== undefined && v < floors[f])) process.exit(1);
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
