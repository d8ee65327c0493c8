// Copies the build manifest's files (scripts/build-assets.json) into dist/ at the same relative
// paths: the non-TypeScript files the service reads from beside its modules (a worker script, the
// dashboard's assets, the Python sandbox's runner). Run by `npm run build` after tsc; plain Node,
// so the build stage needs nothing beyond the compiler. Throws (exit 1) when a listed file is missing.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'scripts', 'build-assets.json'), 'utf8'));
for (const entry of manifest.copy) {
  const from = path.join(root, entry);
  if (!fs.existsSync(from)) throw new Error(`build manifest: ${entry} does not exist`);
  const to = path.join(root, 'dist', entry);
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.cpSync(from, to, { recursive: true });
  console.log(`copied ${entry} → dist/${entry}`);
}
