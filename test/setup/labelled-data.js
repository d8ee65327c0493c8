/**
 * The labelled data some suites read: `../shared/data` beside the clone (real third-party pages
 * and titles with human labels, for evaluation and end-to-end checks; docs/testing.md "Labelled
 * data"). The service never needs it; a clone without it can still run every other test. A
 * suite that reads it says so with the marker comment `@needs-labelled-data` at its top.
 *
 * Without the folder, outside CI, Jest leaves the marked suites out (jest.config.js) and the
 * summary lists each of them by name as not run (test/setup/summary-reporter.js), so nothing
 * is skipped silently. Under CI (`CI=true`) nothing is left out: a missing folder fails those
 * suites.
 */
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const MARKER = '@needs-labelled-data';

/**
 * Absolute path of the labelled data folder: `SHARED_DATA_DIR` (relative to the repository root)
 * when set, else `../shared/data` beside the clone, as the service's configuration reads it.
 */
function labelledDataDir() {
  return path.resolve(ROOT, process.env.SHARED_DATA_DIR || path.join('..', 'shared', 'data'));
}

/** Whether this run is CI's (`CI=true` or `1`), as test/helpers/prerequisites.ts reads it. */
function inCi() {
  return ['true', '1'].includes((process.env.CI || '').toLowerCase());
}

/** The `*.test.ts` files under `dir` (node_modules and dist excluded). */
function testFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') out.push(...testFiles(full));
    } else if (entry.name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

/** The suites (absolute paths) that carry the marker, under test/ and packages/. */
function suitesNeedingLabelledData() {
  return [...testFiles(path.join(ROOT, 'test')), ...testFiles(path.join(ROOT, 'packages'))]
    .filter((file) => fs.readFileSync(file, 'utf8').includes(MARKER))
    .sort();
}

/** The suites this run leaves out: the marked ones when the folder is missing outside CI, else none. */
function suitesLeftOut() {
  return fs.existsSync(labelledDataDir()) || inCi() ? [] : suitesNeedingLabelledData();
}

module.exports = { labelledDataDir, suitesNeedingLabelledData, suitesLeftOut, MARKER };
