/**
 * Text-model training off the event loop and over every core: the training runs
 * in a worker thread ({@link trainTextModelInThread}), and its CRF trainings (one per
 * cross-fitting fold plus the final tagger, most of its time: src/enrichment/text/model.ts
 * PendingTextTraining) run in a pool of further threads, one per core, each holding one copy of
 * the example sequences. The result is the same model as in-process training: the trainings are
 * deterministic and independent, and their taggers are put back in order.
 */
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { beginTextTraining, type TextExample, type TextModel } from './text';
import type { Crf } from './text/crf';
import type { Sequence } from './text/tagger';
import type { OutputField } from './types';

/** Where a thread loads a module from: its loader (tsx for the TypeScript sources, none for the build) and path. */
interface ThreadModule {
  loader: string | null;
  module: string;
}

/**
 * Where a thread loads this directory's module `name` from: compiled (`.js`, the production
 * build, plain node; tsx is a development dependency) or TypeScript (`.ts`, with tsx's CommonJS
 * loader, as under tsx and Jest).
 */
function threadModule(name: string): ThreadModule {
  if (path.extname(__filename) === '.js') return { loader: null, module: path.join(__dirname, `${name}.js`) };
  return { loader: require.resolve('tsx/cjs/api'), module: path.join(__dirname, `${name}.ts`) };
}

/** The model thread's program (CommonJS, evaluated): load this module, train with the CRF pool, post the model. */
const MODEL_PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.loader) require(workerData.loader).register();
const { trainTextModelWithPool } = require(workerData.module);
trainTextModelWithPool(workerData.fields, workerData.examples, workerData.knownValues, workerData.texts).then((model) => parentPort.postMessage(model));
`;

/** A CRF thread's program: load the text model, then train each requested fold exclusion and post its tagger. */
const CRF_PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.loader) require(workerData.loader).register();
const { trainCrfExcluding } = require(workerData.module);
parentPort.on('message', ({ index, exclude }) => {
  parentPort.postMessage({ index, crf: trainCrfExcluding(workerData.names, workerData.sequences, workerData.folds, exclude) });
});
`;

/**
 * Starts `program` in a worker thread with `workerData`, unreferenced (a training in progress
 * must not keep a finishing process alive).
 * @throws Error when the thread cannot start
 */
function startThread(program: string, workerData: unknown): Worker {
  const worker = new Worker(program, { eval: true, workerData });
  worker.unref();
  return worker;
}

/**
 * The CRF trainings `trainings` (fold left out, or null for all; see PendingTextTraining) over
 * `sequences`, run in up to `threads` worker threads, the held-out (fold) trainings first and the
 * final one (null) last, so that `onTrained` (called with each tagger as it arrives, on this
 * thread) can do the held-out work while the final tagger trains; resolves with the taggers in
 * the order of `trainings`.
 * @throws Error when a thread cannot start, load the sources or train, or `onTrained` throws
 */
export function trainCrfsInThreads(
  names: string[],
  sequences: Sequence[],
  folds: number[],
  trainings: Array<number | null>,
  threads = os.availableParallelism(),
  onTrained: (index: number, crf: Crf) => void = () => {},
): Promise<Crf[]> {
  const order = trainings.map((_, i) => i).sort((a, b) => Number(trainings[a] === null) - Number(trainings[b] === null));
  const taggers: Crf[] = new Array<Crf>(trainings.length);
  const workers: Worker[] = [];
  /** Threads stopped on purpose: no training was left for them, or all are done. */
  const retired = new Set<Worker>();
  const retire = (worker: Worker): void => {
    retired.add(worker);
    void worker.terminate();
  };
  return new Promise<Crf[]>((resolve, reject) => {
    let next = 0;
    let done = 0;
    const fail = (err: unknown): void => {
      for (const w of workers) retire(w);
      reject(err instanceof Error ? err : new Error(String(err)));
    };
    const give = (worker: Worker): void => {
      const index = order[next++];
      if (index === undefined) {
        retire(worker);
        return;
      }
      worker.postMessage({ index, exclude: trainings[index] });
    };
    if (trainings.length === 0) resolve([]);
    try {
      for (let t = 0; t < Math.min(Math.max(threads, 1), trainings.length); t += 1) {
        const worker = startThread(CRF_PROGRAM, { ...threadModule('text/index'), names, sequences, folds });
        workers.push(worker);
        worker.on('message', ({ index, crf }: { index: number; crf: Crf }) => {
          taggers[index] = crf;
          done += 1;
          if (done === trainings.length) {
            for (const w of workers) retire(w);
          } else give(worker);
          try {
            onTrained(index, crf);
          } catch (err) {
            fail(err);
            return;
          }
          if (done === trainings.length) resolve(taggers);
        });
        worker.once('error', fail);
        worker.once('exit', (code) => {
          if (!retired.has(worker)) fail(new Error(`CRF training thread exited with code ${code}`));
        });
        give(worker);
      }
    } catch (err) {
      fail(err);
    }
  });
}

/**
 * The text model of src/enrichment/text `trainTextModel`, its CRF trainings run by
 * {@link trainCrfsInThreads}; what the model thread runs.
 * @throws Error when a CRF thread fails
 */
export async function trainTextModelWithPool(
  fields: OutputField[],
  examples: TextExample[],
  knownValues: Record<string, string[]>,
  texts: string[] = [],
): Promise<TextModel> {
  const pending = beginTextTraining(fields, examples, knownValues, texts);
  const taggers = await trainCrfsInThreads(pending.names, pending.sequences, pending.folds, pending.trainings, undefined, (index, crf) =>
    pending.take(index, crf),
  );
  return pending.complete(taggers);
}

/**
 * src/enrichment/text `trainTextModel` in a worker thread, its CRF trainings spread over a pool
 * of threads ({@link trainTextModelWithPool}): resolves with the structured clone of the model
 * (Maps, typed arrays and RegExps survive it; the model holds no functions or class instances,
 * which test/unit/enrichment/learned-text.test.ts checks by comparing with in-process training).
 * The threads load the TypeScript sources through tsx, as `npm run worker` does, or the compiled
 * build (`npm run build`) without a loader.
 * @throws Error when a thread cannot start, load the sources, train or post the model
 */
export function trainTextModelInThread(
  fields: OutputField[],
  examples: readonly TextExample[],
  knownValues: Record<string, string[]>,
  texts: readonly string[] = [],
): Promise<TextModel> {
  return new Promise((resolve, reject) => {
    let worker: Worker;
    try {
      worker = startThread(MODEL_PROGRAM, { ...threadModule('text-threads'), fields, examples, knownValues, texts });
    } catch (err) {
      reject(err);
      return;
    }
    worker.once('message', (model: TextModel) => {
      resolve(model);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`text model training thread exited with code ${code}`)));
  });
}
