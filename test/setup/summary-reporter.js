/**
 * Jest reporter that ends the run with the plain closing line CI reads in any language:
 * "tests: N passed, N failed, N skipped", written when the process exits so that it is the
 * last line, after Jest's own footer.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const line = `tests: ${results.numPassedTests} passed, ${failed} failed, ${results.numPendingTests} skipped\n`;
    process.once('exit', () => process.stdout.write(line));
  }
}
module.exports = SummaryReporter;
