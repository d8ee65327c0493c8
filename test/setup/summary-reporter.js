/**
 * Jest reporter that ends the run with the plain closing line CI reads in any language:
 * "tests: N passed, N failed, N skipped", written when the process exits so that it is the
 * last line, after Jest's own footer. Skipped tests are never silent: their names
 * are listed, loudly, just before that line. Before them it lists the slowest suites with their
 * wall-clock seconds, so a run that grows towards CI's time limit shows where the time goes
 * (docs/testing.md "How long the suite takes").
 */
const fs = require('node:fs');
const { labelledDataDir, suitesLeftOut } = require('./labelled-data');

const SLOWEST = 15;

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const skipped = results.testResults.flatMap((file) =>
      file.testResults
        .filter((t) => t.status === 'pending' || t.status === 'skipped' || t.status === 'todo')
        .map((t) => `  ${file.testFilePath}: ${t.fullName}`),
    );
    const seconds = (file) => (file.perfStats.end - file.perfStats.start) / 1000;
    const total = results.testResults.reduce((sum, file) => sum + seconds(file), 0);
    const slowest = [...results.testResults]
      .sort((a, b) => seconds(b) - seconds(a))
      .slice(0, SLOWEST)
      .map((file) => `  ${seconds(file).toFixed(1).padStart(7)} s  ${file.testFilePath.replace(`${process.cwd()}/`, '')}`);
    const timing = `\nslowest ${slowest.length} of ${results.testResults.length} suites (all suites: ${Math.round(total)} s):\n${slowest.join('\n')}\n`;
    const leftOut = suitesLeftOut().map((file) => `  ${file.replace(`${process.cwd()}/`, '')}`);
    const notRun = leftOut.length
      ? `\n!!! ${leftOut.length} SUITE(S) NOT RUN: the labelled data folder ${labelledDataDir()} is missing (docs/testing.md "Labelled data"):\n${leftOut.join('\n')}\n`
      : '';
    const banner = (skipped.length ? `\n!!! ${skipped.length} TEST(S) SKIPPED:\n${skipped.join('\n')}\n\n` : '') + notRun;
    const counts = { passed: results.numPassedTests, failed, skipped: results.numPendingTests + results.numTodoTests };
    // Under `npm test` (test/setup/run-jest.ts) this is one phase of two: the runner prints the closing line over both.
    const file = process.env.TEST_SUMMARY_FILE;
    if (file) fs.writeFileSync(file, JSON.stringify(counts));
    const line = file ? '' : `tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`;
    process.once('exit', () => process.stdout.write(timing + banner + line));
  }
}
module.exports = SummaryReporter;
