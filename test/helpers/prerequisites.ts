/**
 * Prerequisites of tests that need something outside Node (Chromium, a local PostgreSQL cluster
 * they may restart).: under CI (`CI=true`) a missing prerequisite
 * fails the suite with what to install (the set-up, test/setup/prepare.ts, installs them); outside
 * CI the tests that need it skip, with a loud warning here and their names in the run's summary
 * (test/setup/summary-reporter.js).
 */

/** Whether this run is CI's: `CI=true` (or `1`), as CI systems set it. */
export function inCi(): boolean {
  return ['true', '1'].includes((process.env.CI ?? '').toLowerCase());
}

/**
 * Requires one prerequisite of a test file: when it is missing, throws with what to install, so
 * the file fails with that message (set-up, test/setup/prepare.ts, installs it). No skip.
 * @throws Error naming what is missing and how to get it
 */
export function requirePrerequisite<T>(value: T | null | undefined | false, what: string, install: string): T {
  if (value === null || value === undefined || value === false) throw new Error(`missing test prerequisite: ${what} (${install})`);
  return value;
}

/**
 * Checks one optional prerequisite (a part of a test that can run without it, e.g. the chaos
 * soak's PostgreSQL restarts).
 * @param present whether it is there
 * @param what what is missing, e.g. "Chromium at /usr/bin/chromium"
 * @param install how to get it, e.g. "apt-get install chromium"
 * @returns `present` (outside CI, false means: skip the tests that need it)
 * @throws Error under CI when it is missing
 */
export function prerequisite(present: boolean, what: string, install: string): boolean {
  if (present) return true;
  const message = `missing test prerequisite: ${what} (${install})`;
  if (inCi()) throw new Error(`${message}; CI runs every test, so this run fails`);
  console.warn(`\n!!! SKIPPING TESTS: ${message}. Under CI=true this fails the run.\n`);
  return false;
}
