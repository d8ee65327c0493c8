/**
 * Lints the Python the service ships (the sandbox's runner, src/sandbox/runner.py)
 * with Debian's pyflakes3 (undefined names, unused imports, syntax), which the test set-up
 * installs with the sandbox (test/setup/prepare.ts). Without pyflakes3 it checks the syntax with
 * python3's own parser and says that it did only that. Exits 1 on a finding.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../src/config';

const FILES = ['src/sandbox/runner.py'].map((f) => path.join(REPO_ROOT, f));
const PYFLAKES = '/usr/bin/pyflakes3';

const [program, args] = fs.existsSync(PYFLAKES)
  ? [PYFLAKES, FILES]
  : ['python3', ['-c', 'import ast, sys\nfor f in sys.argv[1:]: ast.parse(open(f).read(), f)', ...FILES]];
if (program !== PYFLAKES) console.warn(`lint-python: ${PYFLAKES} is missing (apt-get install pyflakes3): checked the syntax only`);
const run = spawnSync(program, args, { stdio: 'inherit' });
if (run.status !== 0) {
  console.error(`lint-python: ${path.basename(program)} found problems in ${FILES.map((f) => path.relative(REPO_ROOT, f)).join(', ')}`);
  process.exit(1);
}
