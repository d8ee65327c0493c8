/**
 * Quality floors (issue 22): a fixed slice of each evaluation suite, scored as `npm run eval`
 * scores it, must stay above F1 / accuracy floors set a little below the figures measured when
 * the floors were set (docs/evaluation.md, "Guarding the figures"), so a regression fails CI.
 * - pages: 8 site families (24 pages), tier A, leave-one-site-family-out (`--cv family`) within the slice;
 * - text: oa-mine, examples from the file's even records (`--split-dev`), the first 100 scored and 250 example records;
 * - prices: every price-strings example;
 * - taxonomy: the first 100 scored titles of oa-mine and of ae-110k into the Google taxonomy, titles alone, with examples and
 *   with their own product type's examples left out; the hand-written multilingual titles.
 * About 30–45 s together on 2 cores.
 */
import path from 'node:path';
import { runPagesSuite } from '../../../bench/eval/pages';
import { runPricesSuite } from '../../../bench/eval/prices';
import { runTaxonomySuite } from '../../../bench/eval/taxonomy';
import { runTextSuite } from '../../../bench/eval/text';
import { SHARED_DATA } from '../enrichment/data-dir';

type Prf = { precision: number; recall: number; f1: number };

/** Runs a suite with its tables silenced; returns its JSON figures. */
async function quietly(run: (argv: string[]) => Promise<Record<string, unknown>>, argv: string[]): Promise<Record<string, unknown>> {
  const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  try {
    return await run(argv);
  } finally {
    log.mockRestore();
  }
}

/** Families of the pages slice: the largest multi-page families plus families where a hand-written rule decides a value. */
const SLICE = ['johnlewis', 'zara', 'argos', 'vsezaoci', 'getit', 'stockcenter', 'mechta', 'liveauctioneers'];

/**
 * LOFO F1 floors of the pages slice, per field (measured when set: price 0.783, currency 0.933, availability 0.958, sku 0.917, brand 0.878).
 * No calibration floor: fitted on the slice's 7 other families it is too thin to guard (high 0.79 on 14 values; 0.96 on all 98 pages).
 */
const PAGE_FLOORS: Record<string, number> = {
  price: 0.76,
  currency: 0.91,
  availability: 0.93,
  sku: 0.89,
  brand: 0.85,
};

describe('quality floors on a fixed slice of each suite', () => {
  it('pages under leave-one-site-family-out', async () => {
    const figures = await quietly(runPagesSuite, [
      '--data',
      path.join(SHARED_DATA, 'zyte-product-extraction'),
      '--corpus',
      path.join(SHARED_DATA, 'pages/metascraper-shopping'),
      '--tier',
      'A',
      '--cv',
      'family',
      '--family',
      SLICE.join(','),
    ]);
    const fields = figures.fields as Record<string, Prf>;
    console.info(
      `pages slice LOFO F1: ${Object.entries(fields)
        .map(([f, v]) => `${f} ${v.f1}`)
        .join(', ')}`,
    );
    const calibration = figures.calibration as { levels: Record<string, { precision: number }>; ece: number };
    console.info(`pages slice LOFO calibration: ${JSON.stringify(calibration)}`);
    expect(figures.items).toBe(24);
    expect(figures.source_precision).toBeGreaterThanOrEqual(0.98);
    const below = Object.entries(PAGE_FLOORS).filter(([field, floor]) => fields[field].f1 < floor);
    expect(below).toEqual([]);
  });

  it('text with examples (oa-mine)', async () => {
    const figures = await quietly(runTextSuite, ['--data', path.join(SHARED_DATA, 'oa-mine'), '--split-dev', '--limit', '100', '--examples-limit', '250']);
    const exact = figures.exact as Prf;
    const brand = (figures.brand as { exact: Prf }).exact;
    console.info(`oa-mine slice exact F1 ${exact.f1}, brand precision ${brand.precision}`);
    // Measured when set: 0.852; 0.835 before brands read from a title had to be known (a brand
    // no example states is a guess, not a value: docs/enrich-options.md, "Brands read from the
    // item's text"), 0.804 since, with brand precision 0.889 → 0.966 (recall 0.88 → 0.56).
    expect(exact.f1).toBeGreaterThanOrEqual(0.78);
    expect(brand.precision).toBeGreaterThanOrEqual(0.94);
  });

  it('taxonomy (top-1 into the Google product taxonomy)', async () => {
    const figures = await quietly(runTaxonomySuite, ['--limit', '100']);
    const titles = figures.titles as { accuracy: number; items: number };
    const examples = figures.with_examples as { accuracy: number };
    const leftOut = figures.left_out as { accuracy: number };
    const multilingual = figures.multilingual as { accuracy: number; items: number };
    console.info(
      `taxonomy slice top-1: titles alone ${titles.accuracy}, with examples ${examples.accuracy}, type left out ${leftOut.accuracy}; multilingual ${multilingual.accuracy}`,
    );
    expect(titles.items).toBe(200);
    // Measured when set: 0.780 and 0.915; raised after the issue 26 follow-up (measured 0.890 and 0.935). With
    // examples lowered to 0.90 when weak neighbours stopped voting (0.935 → 0.920) for the type-left-out figure
    // (docs/evaluation.md "Category prediction": measured 0.870, floor 0.84) and the multilingual set (0.986, floor 0.9).
    expect(titles.accuracy).toBeGreaterThanOrEqual(0.87);
    expect(examples.accuracy).toBeGreaterThanOrEqual(0.9);
    expect(leftOut.accuracy).toBeGreaterThanOrEqual(0.84);
    expect(multilingual.items).toBeGreaterThanOrEqual(60);
    expect(multilingual.accuracy).toBeGreaterThanOrEqual(0.9);
  });

  it('prices', async () => {
    const figures = await quietly(runPricesSuite, ['--data', path.join(SHARED_DATA, 'price-strings')]);
    console.info(`prices amount ${figures.amount_accuracy}, currency ${figures.currency_accuracy}`);
    // Measured when set: 0.979 and 1.000.
    expect(figures.amount_accuracy).toBeGreaterThanOrEqual(0.975);
    expect(figures.currency_accuracy).toBeGreaterThanOrEqual(0.995);
  });
});
