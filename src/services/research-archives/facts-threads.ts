/**
 * Reading pages' index facts (src/enrichment/parse/index-facts.ts) on worker threads, one per
 * core, so that indexing an archive (indexing.ts) parses pages on every core while the activity's
 * own thread streams the WARC records and writes batches (docs/benchmarks.md#research-archive).
 * Each thread loads the parser through tsx (as `npm run worker` and Jest run the sources) or from
 * the compiled build (plain node), like src/enrichment/learned-text.ts.
 */
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { IndexFacts } from '../../enrichment/parse/index-facts';

/** The thread's program (CommonJS, evaluated): load the parser, answer each `{id, body}` with `{id, facts}` or `{id, error}`. */
const THREAD_PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.loader) require(workerData.loader).register();
const { parseIndexFacts } = require(workerData.module);
parentPort.on('message', ({ id, body }) => {
  try {
    parentPort.postMessage({ id, facts: parseIndexFacts(Buffer.from(body.buffer, body.byteOffset, body.byteLength)) });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err && err.stack || err) });
  }
});
`;

/** Where a thread loads the parser from: compiled `.js` without a loader, or the `.ts` source with tsx's CommonJS loader. */
function parserModule(): { loader: string | null; module: string } {
  const dir = path.join(__dirname, '..', '..', 'enrichment', 'parse');
  if (path.extname(__filename) === '.js') return { loader: null, module: path.join(dir, 'index-facts.js') };
  return { loader: require.resolve('tsx/cjs/api'), module: path.join(dir, 'index-facts.ts') };
}

/** Threads that read index facts; {@link FactsThreads.close} ends them. */
export interface FactsThreads {
  /** Number of threads. */
  readonly size: number;
  /**
   * The index facts of an HTML page, read on the least busy thread (parseIndexFacts semantics).
   * @throws Error when the thread fails or exits
   */
  facts(body: Buffer): Promise<IndexFacts>;
  /** Terminates the threads; pending reads reject. */
  close(): Promise<void>;
}

interface Pending {
  resolve: (facts: IndexFacts) => void;
  reject: (err: Error) => void;
}

/**
 * Starts `size` parser threads (default: one per core, `os.availableParallelism()`).
 * @throws Error when a thread cannot be created
 */
export function startFactsThreads(size = os.availableParallelism()): FactsThreads {
  const program = parserModule();
  const threads = Array.from({ length: Math.max(1, size) }, () => {
    const worker = new Worker(THREAD_PROGRAM, { eval: true, workerData: program });
    const pending = new Map<number, Pending>();
    const failAll = (err: Error) => {
      for (const p of pending.values()) p.reject(err);
      pending.clear();
    };
    worker.on('message', (msg: { id: number; facts?: IndexFacts; error?: string }) => {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error !== undefined) p?.reject(new Error(`index facts thread: ${msg.error}`));
      else p?.resolve(msg.facts as IndexFacts);
    });
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`index facts thread exited with code ${code}`)));
    return { worker, pending };
  });
  let nextId = 0;
  return {
    size: threads.length,
    facts(body) {
      const thread = threads.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
      const id = nextId++;
      return new Promise<IndexFacts>((resolve, reject) => {
        thread.pending.set(id, { resolve, reject });
        thread.worker.postMessage({ id, body });
      });
    },
    async close() {
      await Promise.all(threads.map((t) => t.worker.terminate()));
    },
  };
}
