/**
 * Jest reporter that ends the run with the plain closing line CI reads in any language:
 * "tests: N passed, N failed, N skipped", written when the process exits so that it is the
 * last line, after Jest's own footer. Skipped tests are never silent: their names
 * are listed, loudly, just before that line.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const skipped = results.testResults.flatMap((file) =>
      file.testResults
        .filter((t) => t.status === 'pending' || t.status === 'skipped' || t.status === 'todo')
        .map((t) => `  ${file.testFilePath}: ${t.fullName}`),
    );
    const banner = skipped.length ? `\n!!! ${skipped.length} TEST(S) SKIPPED:\n${skipped.join('\n')}\n\n` : '';
    const line = `tests: ${results.numPassedTests} passed, ${failed} failed, ${results.numPendingTests + results.numTodoTests} skipped\n`;
    process.once('exit', () => process.stdout.write(banner + line));
  }
}
module.exports = SummaryReporter;
