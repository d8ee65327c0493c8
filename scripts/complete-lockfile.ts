/**
 * `npm run lockfile:complete`: adds to package-lock.json the other-platform optional binaries
 * of packages that ship native builds (@swc/core, unrs-resolver) when the registry in use does
 * not serve them (this machine kind's registry serves only linux-x64 builds, so `npm install`
 * leaves them out and `npm ci` then refuses the lock as out of sync). Each entry gets the
 * `os`/`cpu`/`libc` its name declares, so `npm ci` skips it on this platform without fetching.
 * Run after every `npm install` that changes the lock.
 */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../src/config';

const PARENTS = ['node_modules/@swc/core', 'node_modules/unrs-resolver'];

type LockEntry = Record<string, unknown> & { optionalDependencies?: Record<string, string> };

/** The platform constraints a native-binding package name such as `@swc/core-linux-arm-gnueabihf` declares. */
function platformOf(name: string): { os: string[]; cpu?: string[]; libc?: string[] } {
  const [os, cpu, ...rest] = name
    .split('/')
    .pop()!
    .replace(/^(core|resolver-binding)-/, '')
    .split('-');
  const tail = rest.join('-');
  const libc = os === 'linux' ? (tail.includes('musl') ? ['musl'] : tail.includes('gnu') ? ['glibc'] : undefined) : undefined;
  return { os: [os], ...(cpu ? { cpu: [cpu] } : {}), ...(libc ? { libc } : {}) };
}

function main(): void {
  const file = path.join(REPO_ROOT, 'package-lock.json');
  const lock = JSON.parse(fs.readFileSync(file, 'utf8')) as { packages: Record<string, LockEntry> };
  let added = 0;
  for (const parent of PARENTS) {
    for (const [name, version] of Object.entries(lock.packages[parent]?.optionalDependencies ?? {})) {
      const key = `node_modules/${name}`;
      if (lock.packages[key]) continue;
      lock.packages[key] = { version: version.replace(/^[\^~=]/, ''), optional: true, ...platformOf(name) };
      added++;
    }
  }
  const [root, ...rest] = Object.entries(lock.packages);
  lock.packages = Object.fromEntries([root, ...rest.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
  fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
  console.log(`package-lock.json: ${added} other-platform optional entries added`);
}

main();
