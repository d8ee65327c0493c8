/**
 * `npx tsx bench/cpu-hog.ts [seconds]`: keeps every core busy (one spinning worker thread per core,
 * `HOG_THREADS` to change) for `seconds` (default: until killed), to run the test suite on a busy
 * machine (no assertion may depend on an idle one), e.g.
 *
 *   npx tsx bench/cpu-hog.ts 3600 & for i in 1 2 3; do /usr/bin/time -f %e npm test || break; done; kill %1
 *
 * Prints the threads it started and, when it stops, how long it ran.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';

const SPIN = 'for (;;) { Math.sqrt(Math.random()); }';

function main(): void {
  const threads = Number(process.env.HOG_THREADS ?? os.availableParallelism());
  const seconds = Number(process.argv[2] ?? 0);
  const workers = Array.from({ length: threads }, () => new Worker(SPIN, { eval: true }));
  const started = Date.now();
  console.log(`cpu-hog: ${threads} spinning thread(s)${seconds ? ` for ${seconds} s` : ' until killed'}`);
  let timer: NodeJS.Timeout | undefined;
  const stop = (): void => {
    // A pending timer would keep the process alive after a signal stopped the workers.
    clearTimeout(timer);
    for (const w of workers) void w.terminate();
    console.log(`cpu-hog: stopped after ${Math.round((Date.now() - started) / 1000)} s`);
  };
  if (seconds) timer = setTimeout(stop, seconds * 1000);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main();
