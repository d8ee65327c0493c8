/**
 * Speed of a text-only job (`web_search: false`) with catalog examples, through
 * the engine directly: the WDC-PAVE offers of `../shared/data/wdc-pave` play the catalog
 * (examples built as src/services/enrichment/rows/examples.ts builds them: one example per item text,
 * with the item's values that text states), every attribute of the file is an output field, and
 * `items` offers (the file's, repeated when asked for more) are enriched as one job. A second job
 * with the same examples shows the cached model (no training). Prints one JSON line
 * `{bench, examples, example_texts, fields, items, train_s, extract_s, job_s, items_per_s,
 * cpu_s, second_job_s}` (seconds of wall time; `cpu_s` = user + system CPU of this process).
 * Usage: `npx tsx bench/text-job.ts [examples=1000] [items=1000]`.
 */
import { createEngine } from '../src/enrichment/engine';
import type { CatalogTextExample, Evidence, OutputField } from '../src/enrichment/types';
import { attributesOf, readWdcOffers, valuesOf } from './fixtures/wdc-pave';

/**
 * The benchmark of this file's header: a job of `nItems` offers with `nExamples` catalog examples;
 * returns its figures (the JSON line's fields).
 * @throws when the WDC-PAVE offers are not there (bench/fixtures/wdc-pave.ts)
 */
export async function measureTextJob(nExamples = 1000, nItems = 1000): Promise<Record<string, unknown>> {
  const offers = readWdcOffers();
  const fields: OutputField[] = attributesOf(offers).map((name) => ({ name, type: 'string', description: name }));
  const examples: CatalogTextExample[] = offers.slice(0, nExamples).flatMap((o) => {
    const values = valuesOf(o);
    return (
      [
        ['title', o.input_title],
        ['description', o.input_description ?? ''],
      ] as const
    )
      .filter(([, text]) => text.trim() !== '')
      .map(([field, text]) => ({
        field,
        text,
        values: Object.fromEntries(Object.entries(values).filter(([, v]) => text.toLowerCase().includes(v.toLowerCase()))),
      }));
  });
  const items = Array.from({ length: nItems }, (_, i) => offers[i % offers.length]!).map((o) => ({
    title: o.input_title,
    description: o.input_description ?? '',
  }));
  const corpus = items.flatMap((i) => [i.title, i.description].filter(Boolean));
  const engine = createEngine({
    search: { search: async () => [] },
    fetcher: {
      fetch: async () => {
        throw new Error('no web in a text-only job');
      },
    },
  });
  const evidence: Evidence = { queries: [], search_results: [], documents: [] };
  const job = async (texts: string[]): Promise<{ train: number; extract: number }> => {
    const options = { speed: 'fast' as const, web_search: false, text_examples: examples, text_corpus: texts };
    const t0 = Date.now();
    // The first row waits for the training; the rest reuse the model.
    await engine.extract({ item: items[0]!, output_schema: fields, options }, evidence);
    const t1 = Date.now();
    for (const item of items.slice(1)) await engine.extract({ item, output_schema: fields, options }, evidence);
    return { train: (t1 - t0) / 1000, extract: (Date.now() - t1) / 1000 };
  };
  const cpu0 = process.cpuUsage();
  const first = await job(corpus);
  const cpu = process.cpuUsage(cpu0);
  // Another job on the same catalog (same examples, its own item texts): the model is cached.
  const second = await job([...corpus]);
  const r = (x: number) => Number(x.toFixed(2));
  return {
    bench: 'text-job',
    examples: nExamples,
    example_texts: examples.length,
    fields: fields.length,
    items: nItems,
    train_s: r(first.train),
    extract_s: r(first.extract),
    job_s: r(first.train + first.extract),
    items_per_s: r(nItems / (first.train + first.extract)),
    cpu_s: r((cpu.user + cpu.system) / 1e6),
    second_job_s: r(second.train + second.extract),
  };
}

if (require.main === module)
  measureTextJob(Number(process.argv[2] ?? 1000), Number(process.argv[3] ?? 1000))
    .then((r) => console.log(JSON.stringify(r)))
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
