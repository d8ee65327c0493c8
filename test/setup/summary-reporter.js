/**
 * Jest reporter that ends the run with the plain closing line CI reads in any language:
 * "tests: N passed, N failed, N skipped" alone on the last line.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(`tests: ${results.numPassedTests} passed, ${failed} failed, ${results.numPendingTests} skipped\n`);
  }
}
module.exports = SummaryReporter;
