import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';

/** The pinned Temporal CLI; later tags carry a `replace` directive and cannot be `go install`ed. */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

/**
 * Returns the path of the Temporal CLI binary in `cacheDir`, building it with `go install` first
 * when it is missing (the first build takes a few minutes; progress goes to `log`). The cache
 * lives outside the clone so CI and later runs reuse it.
 * @throws Error when `go` is missing or the build fails
 */
export async function ensureTemporalCli(cacheDir: string, log: (line: string) => void = console.log): Promise<string> {
  const bin = path.join(cacheDir, 'temporal');
  if (fs.existsSync(bin)) return bin;
  fs.mkdirSync(cacheDir, { recursive: true });
  log(`Temporal CLI not found in ${cacheDir}: building ${TEMPORAL_CLI_MODULE} with go install (first time only, takes a few minutes)...`);
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('go', ['install', TEMPORAL_CLI_MODULE], { env: { ...process.env, GOBIN: cacheDir }, stdio: ['ignore', 'inherit', 'inherit'] });
    const ticker = setInterval(() => log(`  ...still building the Temporal CLI (${Math.round((Date.now() - started) / 1000)} s)`), 30000);
    child.on('error', (err) => {
      clearInterval(ticker);
      reject(new Error(`cannot run go (is Go installed?): ${err.message}`));
    });
    child.on('exit', (code) => {
      clearInterval(ticker);
      if (code === 0) resolve();
      else reject(new Error(`go install ${TEMPORAL_CLI_MODULE} failed with exit code ${code}`));
    });
  });
  if (!fs.existsSync(bin)) throw new Error(`go install finished but ${bin} is missing`);
  log(`Temporal CLI built in ${Math.round((Date.now() - started) / 1000)} s: ${bin}`);
  return bin;
}
