/**
 * Worker-thread entry of the taxonomy eval's pages section (./taxonomy-pages.ts
 * `parsePagesInWorker`): parses the labelled product pages with the engine's own parser
 * (src/enrichment/parse/page.ts `parsePage`) on another core while the main thread scores the
 * titles, and posts the parsed pages back in order. `workerData`: `Array<{url, file}>` (`file` an
 * absolute path). Loaded through tsx's CommonJS hook, so it runs only as a worker.
 */
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { parsePage } from '../../src/enrichment/parse/page';

if (parentPort) {
  const pages = workerData as Array<{ url: string; file: string }>;
  parentPort.postMessage(pages.map((p) => parsePage(p.url, readFileSync(p.file))));
}
