/**
 * Run by `npm test` before Jest: builds the Temporal CLI when missing (tests start dev servers
 * from it), creates the test database and applies the migrations, and installs Debian's
 * chromium for the browser tests (test/browser) when it is missing and it can. Prints what it does.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { loadConfig } from '../../src/config';
import { createKnex, ensureDatabase, migrateLatest } from '../../src/db';
import { ensureTemporalCli } from '../../temporal/cli-binary';
import { ensureLocalPostgres } from '../../src/lib/local-postgres';
import { TEST_DATABASE_URL } from './env';

async function main(): Promise<void> {
  const config = loadConfig();
  ensureChromium();
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
 * missing and this runs as root with apt-get, installs Debian's `chromium` package; a failed
 * install is a warning (the browser tests then skip, saying why), never a failed set-up.
 */
function ensureChromium(): void {
  const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (fs.existsSync(chromium)) {
    console.log(`[test setup] Chromium: ${chromium}`);
    return;
  }
  const apt = ['/usr/bin/apt-get', '/bin/apt-get'].find((p) => fs.existsSync(p));
  if (process.getuid?.() !== 0 || !apt) {
    console.warn(`[test setup] WARNING: no Chromium at ${chromium} and cannot install it (needs root and apt-get): the browser tests will be skipped`);
    return;
  }
  const run = (args: string[]) => {
    console.log(`[test setup] running: apt-get ${args.join(' ')}`);
    return spawnSync(apt, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
  };
  // A fresh container has no package lists yet: update once when the first install fails.
  const ok =
    run(['install', '-y', '--no-install-recommends', 'chromium']) || (run(['update']) && run(['install', '-y', '--no-install-recommends', 'chromium']));
  if (ok && fs.existsSync(chromium)) console.log(`[test setup] Chromium installed: ${chromium}`);
  else console.warn(`[test setup] WARNING: installing chromium failed: the browser tests will be skipped`);
}

main().catch((err) => {
  console.error('[test setup] failed:', err);
  process.exit(1);
});
