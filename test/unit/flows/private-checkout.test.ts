/**
 * The Python sandbox works whatever directory the code lies in. A checkout under a
 * directory only its owner can enter (mode 0700, as `/root` and `mktemp -d` folders are) used to
 * leave every code node `unavailable` when the worker ran as root: the sandbox drops to uid 65534,
 * which could not read runner.py there. This copies the service's source into such a directory and
 * runs a transform from that copy in a separate process, exactly as a worker started there would.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../../src/config';

const SCRIPT = `
import { loadConfig } from './src/config';
import { PythonTransformSession } from './src/sandbox/python-sandbox';

async function main(): Promise<void> {
  const session = await PythonTransformSession.start('def transform(rows):\\n    return [dict(r, double=r["n"] * 2) for r in rows]', {
    ...loadConfig().pythonSandbox,
    timeoutSeconds: 30,
  });
  try {
    const result = await session.transform([{ n: 21 }]);
    process.stdout.write(JSON.stringify(result.rows));
  } finally {
    await session.close();
  }
}
main().catch((err) => {
  process.stderr.write(String(err?.stack ?? err));
  process.exit(1);
});
`;

test('a transform runs from a checkout under a 0700 directory', () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'private-checkout-'));
  try {
    expect(fs.statSync(home).mode & 0o777).toBe(0o700);
    const checkout = path.join(home, 'clone');
    fs.mkdirSync(checkout);
    fs.cpSync(path.join(REPO_ROOT, 'src'), path.join(checkout, 'src'), { recursive: true });
    for (const file of ['package.json', 'tsconfig.json']) fs.copyFileSync(path.join(REPO_ROOT, file), path.join(checkout, file));
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(checkout, 'node_modules'));
    fs.writeFileSync(path.join(checkout, 'run.ts'), SCRIPT);
    const run = spawnSync(path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), ['run.ts'], { cwd: checkout, encoding: 'utf8', timeout: 110_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([{ n: 21, double: 42 }]);
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});
