/**
 * Run by `npm test` before Jest: builds the Temporal CLI when missing (tests start dev servers
 * from it), creates the test databases (one per Jest worker: test/setup/workers.ts) and applies the migrations, and installs Debian's
 * chromium for the browser tests (test/browser) and bubblewrap + python3 for the Python sandbox
 * (test/unit/flows) when they are missing and it can. Prints what it does.
 */
import { Config, loadConfig } from '../../src/config';
import { createKnex, ensureDatabase, migrateLatest } from '../../src/db';
import { ensureTemporalCli } from '../../temporal/cli-binary';
import { ensureDebianPackage } from '../../src/lib/debian-packages';
import { ensureLocalPostgres } from '../../src/lib/local-postgres';
import { inCi } from '../helpers/prerequisites';
import { TEST_DATABASE_URL } from './env';
import { testWorkers, workerDatabaseUrl } from './workers';

async function main(): Promise<void> {
  const config = loadConfig();
  ensureChromium(config);
  ensurePythonSandbox(config);
  console.log('[test setup] Temporal CLI:', await ensureTemporalCli(config.temporalCliCache, (l) => console.log('[test setup]', l)));
  await ensureLocalPostgres(TEST_DATABASE_URL, (l) => console.log('[test setup]', l));
  // One database per Jest worker of `npm test` (test/setup/workers.ts); worker 1's is TEST_DATABASE_URL.
  const workers = testWorkers();
  for (let worker = 1; worker <= workers; worker++) await prepareDatabase(workerDatabaseUrl(TEST_DATABASE_URL, worker));
}

/** Creates a test database when it is missing and applies the pending migrations, saying which. */
async function prepareDatabase(url: string): Promise<void> {
  const created = await ensureDatabase(url);
  console.log(`[test setup] test database ${created ? 'created' : 'present'}: ${url}`);
  const knex = createKnex(url);
  try {
    const applied = await migrateLatest(knex);
    console.log(`[test setup] migrations applied: ${applied.length ? `${applied.length} (${applied[0]} … ${applied[applied.length - 1]})` : 'none pending'}`);
  } finally {
    await knex.destroy();
  }
}

/**
 * The browser tests drive Chromium at `CHROMIUM_PATH` or /usr/bin/chromium. When it is
 * missing, installs Debian's `chromium` package if it can. A failed install fails the set-up under
 * CI (`CI=true`); elsewhere it is a warning and the browser tests fail saying what to install.
 * @throws Error under CI when Chromium is missing and cannot be installed
 */
function ensureChromium(config: Config): void {
  const chromium = config.render.chromiumPath;
  if (ensurePackage(chromium, 'chromium')) console.log(`[test setup] Chromium: ${chromium}`);
  else if (inCi()) throw new Error(`no Chromium at ${chromium} and it could not be installed (apt-get install chromium, as root): CI runs the browser tests`);
  else console.warn(`[test setup] WARNING: no Chromium at ${chromium} and it could not be installed: the browser tests will fail`);
}

/**
 * Flows' Python sandbox (docs/sandbox.md, "The Python sandbox") needs bubblewrap and
 * Debian's python3, and its runner.py is linted with Debian's pyflakes3. Installs what is missing
 * if it can. Isolation is a requirement, so its tests never skip: without these programs they
 * fail, and this says so first.
 */
function ensurePythonSandbox(config: Config): void {
  const { bwrapPath, pythonPath } = config.pythonSandbox;
  const bwrap = ensurePackage(bwrapPath, 'bubblewrap');
  const python = ensurePackage(pythonPath, 'python3');
  if (bwrap && python) console.log(`[test setup] Python sandbox: ${bwrapPath}, ${pythonPath}`);
  else console.error(`[test setup] ERROR: the Python sandbox needs ${bwrapPath} (bubblewrap) and ${pythonPath} (python3): its tests will FAIL`);
  // `npm run lint` checks the sandbox's runner.py with it (scripts/lint-python.ts).
  if (ensurePackage('/usr/bin/pyflakes3', 'pyflakes3')) console.log('[test setup] Python lint: /usr/bin/pyflakes3');
}

/** {@link ensureDebianPackage} (src/lib/debian-packages.ts) printing as the set-up: whether `file` exists afterwards. */
function ensurePackage(file: string, pkg: string): boolean {
  return ensureDebianPackage(file, pkg, { log: (line) => console.log(`[test setup] ${line}`) }).present;
}

main().catch((err) => {
  console.error('[test setup] failed:', err);
  process.exit(1);
});
