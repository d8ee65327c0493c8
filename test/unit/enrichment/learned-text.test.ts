// @needs-labelled-data: reads ../shared/data (docs/testing.md "Labelled data").
/**
 * The engine's learned text layer (src/enrichment/learned-text.ts) on real labelled titles:
 * OA-Mine Shoes (shared/data/oa-mine/train.jsonl; even records play the catalog, odd records
 * are new items). Training in a worker thread gives the same model as in-process training;
 * models are trained once per examples array and field set; and with the catalog's examples
 * the engine reads model names from titles that the rule layer with known values alone misses.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createEngine } from '../../../src/enrichment';
import { createLearnedTextModels, learnedTextFields, trainingKnownValues } from '../../../src/enrichment/learned-text';
import { trainCrfsInThreads, trainTextModelInThread } from '../../../src/enrichment/text-threads';
import { beginTextTraining, extractWithModel, trainCrfExcluding, trainTextModel } from '../../../src/enrichment/text';
import type { CatalogTextExample, OutputField } from '../../../src/enrichment/types';
import { SHARED_DATA } from '../../helpers/data';
import { noResearch } from '../../helpers/no-research';

interface Shoe {
  title: string;
  values: Record<string, string>;
}

const shoes: Shoe[] = fs
  .readFileSync(path.join(SHARED_DATA, 'oa-mine', 'train.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as { input: string; category: string; target_scores: Record<string, Record<string, number>> })
  .filter((r) => r.category === 'Shoes')
  .map((r) => ({
    title: r.input,
    // The catalog holds one value per item: the first acceptable one; n/a = no value.
    values: Object.fromEntries(
      Object.entries(r.target_scores)
        .map(([k, v]) => [k, Object.keys(v)[0]!])
        .filter(([, v]) => v !== 'n/a'),
    ),
  }));
const catalog = shoes.filter((_, i) => i % 2 === 0);
const fresh = shoes.filter((_, i) => i % 2 === 1);
const names = [...new Set(shoes.flatMap((s) => Object.keys(s.values)))];
const fields: OutputField[] = names.map((name) => ({ name, type: 'string', description: name }));
const examples: CatalogTextExample[] = catalog.map((s) => ({ field: 'title', text: s.title, values: s.values }));

/** Known values as the service gives them (src/services/enrichment/rows/staging.ts): ≤ 50 most frequent per field. */
function serviceKnownValues(items: Shoe[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of names) {
    const counts = new Map<string, number>();
    for (const s of items) if (s.values[name]) counts.set(s.values[name]!, (counts.get(s.values[name]!) ?? 0) + 1);
    const top = [...counts]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 50)
      .map(([v]) => v);
    if (top.length) out[name] = top;
  }
  return out;
}

test('the OA-Mine Shoes records are there (shared data)', () => {
  expect(shoes.length).toBeGreaterThan(100);
  expect(names).toContain('Model name');
});

test('a model trained in a worker thread extracts exactly what one trained in-process does', async () => {
  const known = trainingKnownValues(fields, examples);
  // The new items' titles are the job's own texts: the model counts phrases over them too.
  const texts = fresh.map((s) => s.title);
  const threaded = await trainTextModelInThread(fields, examples, known, texts);
  const local = trainTextModel(fields, examples, known, texts);
  expect(threaded.tagger).not.toBeNull();
  expect(threaded.corpus.texts).toEqual(new Set([...examples.map((e) => e.text), ...texts]));
  for (const s of fresh) expect(extractWithModel(s.title, threaded)).toEqual(extractWithModel(s.title, local));
}, 120_000);

test('learnedTextModel trains once per examples version (examples, field set, known values), whichever job brings them', async () => {
  const { model: learnedTextModel } = createLearnedTextModels();
  const few = examples.slice(0, 20);
  const steps: string[] = [];
  const onTraining = (state: 'started' | 'finished') => void steps.push(state);
  const first = learnedTextModel(fields, few, {}, [], true, onTraining);
  expect(first).not.toBeNull();
  expect(learnedTextModel(fields, few, {}, [], true, onTraining)).toBe(first);
  expect(
    learnedTextModel(
      fields.map((f) => ({ ...f })),
      few,
      {},
      [],
      true,
    ),
  ).toBe(first); // same definitions, other objects
  // Another job of the same catalog: another array with the same examples gets the cached model.
  expect(learnedTextModel(fields, [...few], {}, [], true, onTraining)).toBe(first);
  const others = [learnedTextModel(fields.slice(0, 3), few, {}, [], true), learnedTextModel(fields, few, { Brand: ['Zeta'] }, [], true)];
  for (const other of others) expect(other).not.toBe(first);
  // A job's own item texts join the examples' in the phrase counts, on the same trained parts.
  const jobTexts = fresh.slice(0, 5).map((s) => s.title);
  const withTexts = await learnedTextModel(fields, [...few], {}, jobTexts, true, onTraining)!;
  expect([...withTexts.corpus.texts]).toEqual([...few.map((e) => e.text), ...jobTexts]);
  expect(withTexts.tagger).toBe((await first)!.tagger);
  expect((await first)!.corpus.texts.has(jobTexts[0]!)).toBe(false);
  // One training for all these calls: the step was shown once.
  expect(steps).toEqual(['started', 'finished']);
  // Nothing to learn: no example states a value of these fields.
  expect(learnedTextModel([{ name: 'weight', type: 'number', description: 'Weight' }], few)).toBeNull();
  expect(learnedTextModel(fields, [])).toBeNull();
  await Promise.all([first, ...others]);
}, 120_000);

test("training known values: the examples' values with frequency, then the catalog's other known values", () => {
  const ex: CatalogTextExample[] = [
    { field: 'title', text: 'Acme Zephyr', values: { brand: 'Acme', line: ['Zephyr', 'Zephyr Pro'] } },
    { field: 'title', text: 'Acme Nimbus', values: { brand: 'Acme', line: 'Nimbus' } },
    { field: 'sku', text: 'A-1', values: {} },
  ];
  const f: OutputField[] = [
    { name: 'brand', type: 'string', description: 'Brand' },
    { name: 'line', type: 'string', description: 'Line' },
    { name: 'size', type: 'string', description: 'Size' },
  ];
  expect(trainingKnownValues(f, ex, { brand: ['Acme', 'Borealis'], size: ['1 l'], other: ['x'] })).toEqual({
    brand: ['Acme', 'Acme', 'Borealis'],
    line: ['Zephyr', 'Nimbus'],
    size: ['1 l'],
  });
  expect([...learnedTextFields(ex)]).toEqual(['title']);
});

test("with the catalog's examples the engine reads model names, colours and sizes the rule layer misses", async () => {
  const engine = createEngine(noResearch('web_search: false'));
  const known = serviceKnownValues(catalog);
  const correct = async (withExamples: boolean): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (const s of fresh) {
      const { result } = await engine.enrich({
        item: { title: s.title },
        output_schema: fields,
        options: { speed: 'fast', web_search: false, known_values: known, ...(withExamples ? { text_examples: examples } : {}) },
      });
      expect(result.error).toBeUndefined();
      for (const name of ['Model name', 'Color', 'Size'])
        if (s.values[name] !== undefined && result.after_data[name] === s.values[name]) out[name] = (out[name] ?? 0) + 1;
    }
    return out;
  };
  const rules = await correct(false);
  const learned = await correct(true);
  const models = fresh.filter((s) => s.values['Model name']).length;
  // Measured: Model name 10 → 40 of 67, Color 35 → 54 of 59, Size 31 → 53 of 57 (rules → learned).
  expect(rules['Model name'] ?? 0).toBeLessThan(0.25 * models);
  expect(learned['Model name'] ?? 0).toBeGreaterThan(0.45 * models);
  expect(learned.Color ?? 0).toBeGreaterThan(rules.Color ?? 0);
  expect(learned.Size ?? 0).toBeGreaterThan(rules.Size ?? 0);
}, 120_000);

test('the CRF trainings of a text model give the same taggers in a pool of threads as on this thread, whatever the pool size', async () => {
  const pending = beginTextTraining(fields, examples.slice(0, 60), trainingKnownValues(fields, examples.slice(0, 60)));
  expect(pending.trainings).toEqual([0, 1, 2, null]);
  const local = pending.trainings.map((exclude) => trainCrfExcluding(pending.names, pending.sequences, pending.folds, exclude));
  for (const threads of [1, 3]) {
    const pooled = await trainCrfsInThreads(pending.names, pending.sequences, pending.folds, pending.trainings, threads);
    expect(pooled.map((crf) => [...crf.weights])).toEqual(local.map((crf) => [...crf.weights]));
    expect(pooled.map((crf) => [...crf.transitions])).toEqual(local.map((crf) => [...crf.transitions]));
  }
}, 120_000);

test('a CRF training thread that fails rejects the pool', async () => {
  const pending = beginTextTraining(fields, examples.slice(0, 30), {});
  // A sequence without features makes trainCrf throw inside its thread.
  const broken = [{ features: null as unknown as string[][], labels: [1], allowed: undefined }];
  await expect(trainCrfsInThreads(pending.names, broken, [0], [null], 1)).rejects.toThrow();
});
