/**
 * The learned layer of `web_search: false` extraction as the engine runs it: a text model
 * (src/enrichment/text, {@link trainTextModel}) trained on the target catalog's own items, once
 * per examples version (examples, output fields, known values) and engine
 * ({@link createLearnedTextModels}), then reused for every row of every job that brings the same
 * examples; each job's own item texts only extend the phrase counts the model reads.
 *
 * Training is CPU-bound and synchronous (tens of seconds for a thousand examples with many
 * fields), so it runs in worker threads (./text-threads.ts: its CRF trainings over every core):
 * the activity's event loop keeps heartbeating and other rows keep running meanwhile.
 * Trainings run one at a time per engine. When the thread cannot
 * run (no TypeScript loader, a model that does not survive structured cloning), the same
 * training runs in-process: slower to give the event loop back, identical in result.
 */
import { createHash } from 'node:crypto';
import { boundedCache, type BoundedCache } from '../lib/bounded-cache';
import { trainTextModel, withCorpus, type TextExample, type TextModel } from './text';
import { trainTextModelInThread } from './text-threads';
import type { CatalogTextExample, OutputField } from './types';

/**
 * Known values for training: per field, the first value of every example that has one
 * (duplicates kept: frequency, as the text model's default), then the catalog's `known_values`
 * not among them (values of items beyond the sample). When the examples are the whole catalog
 * this is exactly what `npm run eval -- text` passes for its `--examples`.
 * @returns field name → values, fields without any value omitted
 */
export function trainingKnownValues(
  fields: OutputField[],
  examples: readonly TextExample[],
  knownValues: Record<string, string[]> = {},
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const { name } of fields) {
    const values: string[] = [];
    for (const e of examples) {
      const v = e.values[name];
      const first = (Array.isArray(v) ? v : [v]).find((x): x is string => typeof x === 'string' && x.trim().length > 0);
      if (first !== undefined) values.push(first);
    }
    const seen = new Set(values);
    values.push(...(knownValues[name] ?? []).filter((v) => !seen.has(v)));
    if (values.length > 0) out[name] = values;
  }
  return out;
}

const readFields = new WeakMap<readonly CatalogTextExample[], Set<string>>();

/**
 * The item fields whose texts the learned model reads: those of the examples that state some
 * value (cached per examples array). An item's other texts (SKUs, URLs, …) never showed the
 * tagger a value, so the rule layer reads them as it would without examples.
 */
export function learnedTextFields(examples: readonly CatalogTextExample[]): Set<string> {
  let fields = readFields.get(examples);
  if (!fields) {
    fields = new Set(examples.filter((e) => Object.values(e.values).some((v) => v !== null && v !== undefined)).map((e) => e.field));
    readFields.set(examples, fields);
  }
  return fields;
}

/** True when some example has a value for one of `fields` (otherwise there is nothing to learn). */
function teaches(fields: OutputField[], examples: readonly TextExample[]): boolean {
  const names = fields.map((f) => f.name);
  return examples.some((e) =>
    names.some((n) => {
      const v = e.values[n];
      return Array.isArray(v) ? v.some((x) => x.trim().length > 0) : typeof v === 'string' && v.trim().length > 0;
    }),
  );
}

/**
 * The trained text models of one engine (createEngine owns one, src/enrichment/engine.ts) and
 * its training queue: trainings run one at a time per engine (each fills a CPU; a worker
 * process has one engine).
 */
export interface LearnedTextModels {
  /**
   * The text model for `fields` learned from catalog `examples` (with `knownValues`, the
   * catalog's values per field, merged in by {@link trainingKnownValues}), reading its phrase
   * counts over `texts` too (further unlabelled texts of the catalog such as the job's own
   * items: see withCorpus). Trained once per examples version ({@link examplesVersion}: the
   * same catalog examples, field definitions and known values give the same version, whichever
   * job or examples array brings them) and kept for the {@link MODELS_KEPT} versions used last;
   * concurrent callers share one training. Returns null when no example has a value for any
   * of the fields (nothing to learn: the caller keeps the rule layer).
   * @param inProcess train on the calling thread (tests, and the fallback when a thread fails)
   * @param onTraining told `started` when this call starts a training (none was cached or under
   *   way) and `finished` when it has ended, whatever its outcome (the job's progress shows it)
   * @throws Error only when training itself fails (the rejection is cached like the model)
   */
  model(
    fields: OutputField[],
    examples: readonly TextExample[],
    knownValues?: Record<string, string[]>,
    texts?: readonly string[],
    inProcess?: boolean,
    onTraining?: (state: 'started' | 'finished') => void,
  ): Promise<TextModel> | null;
}

/** Trained models kept per engine (distinct examples versions); the least recently used is dropped beyond this. */
const MODELS_KEPT = 8;

/** SHA-256 (hex) of the examples' contents: their texts, values and groups, in order. */
function examplesDigest(examples: readonly TextExample[]): string {
  const hash = createHash('sha256');
  for (const e of examples) hash.update(JSON.stringify([e.text, e.values, e.group ?? null])).update('\n');
  return hash.digest('hex');
}

/**
 * The version of what a model learns from: SHA-256 (hex) of the examples' digest
 * ({@link examplesDigest}), the field definitions and the known values. Two jobs on a catalog
 * whose sampled examples did not change get the same version.
 */
export function examplesVersion(digest: string, fields: OutputField[], knownValues: Record<string, string[]>): string {
  return createHash('sha256')
    .update(digest)
    .update(JSON.stringify([fields, knownValues]))
    .digest('hex');
}

/** An empty set of trained models with an idle training queue. */
export function createLearnedTextModels(): LearnedTextModels {
  /** Trained (or training) models by examples version ({@link MODELS_KEPT} kept). */
  const trained = boundedCache<Promise<TextModel>>(MODELS_KEPT);
  /**
   * Per examples array (a job passes the same array for each row): its digest, and the known
   * values and version per field definitions and catalog known values. Computed once per job,
   * not per row: for 1,000 examples and 51 fields, {@link trainingKnownValues} alone took 45 ms
   * a row (profile of bench/text-job.ts).
   */
  const versions = new WeakMap<readonly TextExample[], { digest: string; byInput: BoundedCache<{ known: Record<string, string[]>; version: string }> }>();
  /** The models reading a job's texts, by the texts array (one per job) and examples version. */
  const withTexts = new WeakMap<readonly string[], Map<string, Promise<TextModel>>>();
  /** Tail of the training queue. */
  let queue: Promise<unknown> = Promise.resolve();
  /** Runs `task` after every training queued before it, whatever their outcome. */
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  };
  const train = (
    version: string,
    fields: OutputField[],
    examples: readonly TextExample[],
    known: Record<string, string[]>,
    inProcess: boolean,
    onTraining?: (state: 'started' | 'finished') => void,
  ): Promise<TextModel> => {
    const hit = trained.get(version);
    if (hit) return hit;
    const onThisThread = (): TextModel => trainTextModel(fields, [...examples], known);
    const training = serial(async () => {
      onTraining?.('started');
      try {
        if (inProcess) return onThisThread();
        try {
          return await trainTextModelInThread(fields, examples, known);
        } catch {
          return onThisThread();
        }
      } finally {
        onTraining?.('finished');
      }
    });
    trained.set(version, training);
    return training;
  };
  return {
    model(fields, examples, knownValues = {}, texts = [], inProcess = false, onTraining) {
      if (examples.length === 0 || !teaches(fields, examples)) return null;
      let ofExamples = versions.get(examples);
      if (!ofExamples) versions.set(examples, (ofExamples = { digest: examplesDigest(examples), byInput: boundedCache(MODELS_KEPT) }));
      const key = JSON.stringify([fields, knownValues]);
      let versioned = ofExamples.byInput.get(key);
      if (!versioned) {
        const trainingKnown = trainingKnownValues(fields, examples, knownValues);
        versioned = { known: trainingKnown, version: examplesVersion(ofExamples.digest, fields, trainingKnown) };
        ofExamples.byInput.set(key, versioned);
      }
      const { known, version } = versioned;
      const model = train(version, fields, examples, known, inProcess, onTraining);
      if (texts.length === 0) return model;
      let perVersion = withTexts.get(texts);
      if (!perVersion) withTexts.set(texts, (perVersion = new Map()));
      const hit = perVersion.get(version);
      if (hit) return hit;
      const reading = model.then((m) => withCorpus(m, texts));
      perVersion.set(version, reading);
      return reading;
    },
  };
}
