/**
 * Run by `npm test` before Jest: builds the Temporal CLI when missing (tests start dev servers
 * from it), creates the test database and applies the migrations, and installs Debian's
 * chromium for the browser tests (test/browser) and bubblewrap + python3 for the Python sandbox
 * (test/unit/flows) when they are missing and it can. Prints what it does.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { Config, loadConfig } from '../../src/config';
import { createKnex, ensureDatabase, migrateLatest } from '../../src/db';
import { ensureTemporalCli } from '../../temporal/cli-binary';
import { ensureLocalPostgres } from '../../src/lib/local-postgres';
import { inCi } from '../helpers/prerequisites';
import { TEST_DATABASE_URL } from './env';

async function main(): Promise<void> {
  const config = loadConfig();
  ensureChromium();
  ensurePythonSandbox(config);
  console.log('[test setup] Temporal CLI:', await ensureTemporalCli(config.temporalCliCache, (l) => console.log('[test setup]', l)));
  await ensureLocalPostgres(TEST_DATABASE_URL, (l) => console.log('[test setup]', l));
  const created = await ensureDatabase(TEST_DATABASE_URL);
  console.log(`[test setup] test database ${created ? 'created' : 'present'}: ${TEST_DATABASE_URL}`);
  const knex = createKnex(TEST_DATABASE_URL);
  try {
    const applied = await migrateLatest(knex);
    console.log(`[test setup] migrations applied: ${applied.length ? applied.join(', ') : 'none pending'}`);
  } finally {
    await knex.destroy();
  }
}

/**
 * The browser tests drive Chromium at `CHROMIUM_PATH` or /usr/bin/chromium (issue 17). When it is
 * missing, installs Debian's `chromium` package if it can. A failed install fails the set-up under
 * CI (`CI=true`); elsewhere it is a warning and the browser tests fail saying what to install (issue 29 §3).
 * @throws Error under CI when Chromium is missing and cannot be installed
 */
function ensureChromium(): void {
  const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (ensureDebianPackage(chromium, 'chromium')) console.log(`[test setup] Chromium: ${chromium}`);
  else if (inCi()) throw new Error(`no Chromium at ${chromium} and it could not be installed (apt-get install chromium, as root): CI runs the browser tests`);
  else console.warn(`[test setup] WARNING: no Chromium at ${chromium} and it could not be installed: the browser tests will fail`);
}

/**
 * Flows' Python sandbox (issue 19; docs/sandbox.md, "The Python sandbox") needs bubblewrap and
 * Debian's python3, and its runner.py is linted with Debian's pyflakes3. Installs what is missing
 * if it can. Isolation is a requirement, so its tests never skip: without these programs they
 * fail, and this says so first.
 */
function ensurePythonSandbox(config: Config): void {
  const { bwrapPath, pythonPath } = config.pythonSandbox;
  const bwrap = ensureDebianPackage(bwrapPath, 'bubblewrap');
  const python = ensureDebianPackage(pythonPath, 'python3');
  if (bwrap && python) console.log(`[test setup] Python sandbox: ${bwrapPath}, ${pythonPath}`);
  else console.error(`[test setup] ERROR: the Python sandbox needs ${bwrapPath} (bubblewrap) and ${pythonPath} (python3): its tests will FAIL`);
  // `npm run lint` checks the sandbox's runner.py with it (scripts/lint-python.ts).
  if (ensureDebianPackage('/usr/bin/pyflakes3', 'pyflakes3')) console.log('[test setup] Python lint: /usr/bin/pyflakes3');
}

/**
 * Makes sure `file` exists: when it is missing and this runs as root with apt-get, installs the
 * Debian package `pkg` (updating the package lists once if the first install fails: a fresh
 * container has none).
 * @returns whether `file` exists afterwards
 */
function ensureDebianPackage(file: string, pkg: string): boolean {
  if (fs.existsSync(file)) return true;
  const apt = ['/usr/bin/apt-get', '/bin/apt-get'].find((p) => fs.existsSync(p));
  if (process.getuid?.() !== 0 || !apt) {
    console.warn(`[test setup] ${file} is missing and ${pkg} cannot be installed here (needs root and apt-get)`);
    return false;
  }
  const run = (args: string[]) => {
    console.log(`[test setup] running: apt-get ${args.join(' ')}`);
    return spawnSync(apt, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
  };
  const install = ['install', '-y', '--no-install-recommends', pkg];
  const ok = run(install) || (run(['update']) && run(install));
  if (ok && fs.existsSync(file)) {
    console.log(`[test setup] installed ${pkg}: ${file}`);
    return true;
  }
  console.warn(`[test setup] installing ${pkg} failed`);
  return false;
}

main().catch((err) => {
  console.error('[test setup] failed:', err);
  process.exit(1);
});
