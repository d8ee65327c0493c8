/**
 * `npm run eval -- <suite> ...` (evaluation.md "The command"): `pages`, `text`, `prices`, `infer` or `taxonomy`.
 * Each suite prints readable tables; the last stdout line is one JSON object of figures.
 * Exit code 2 on usage errors, 1 when a suite fails.
 */
import { runInferSuite } from './infer';
import { runPagesSuite } from './pages';
import { runPricesSuite } from './prices';
import { runTaxonomySuite } from './taxonomy';
import { runTextSuite } from './text';

const SUITES: Record<string, (argv: string[]) => Promise<object>> = {
  pages: runPagesSuite,
  prices: runPricesSuite,
  text: runTextSuite,
  infer: runInferSuite,
  taxonomy: runTaxonomySuite,
};

async function main(): Promise<void> {
  const [suite, ...argv] = process.argv.slice(2);
  const run = suite ? SUITES[suite] : undefined;
  if (!run) {
    console.error(
      'usage: npm run eval -- pages --data <folder> [--corpus <folder> ...] [--tier A|B] [--speed fast|deep]\n' +
        '       npm run eval -- text --data <folder> [--examples <folder> | --split-dev] [--limit N] [--examples-limit N]\n' +
        '       npm run eval -- prices --data <folder>\n' +
        '       npm run eval -- infer [--gold <folder>] [--only <name>]\n' +
        '       npm run eval -- taxonomy [--split test|dev] [--limit N] [--misses]',
    );
    process.exit(2);
  }
  const figures = await run(argv);
  console.log(JSON.stringify(figures));
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
