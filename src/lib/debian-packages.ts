/**
 * Installing the Debian packages a program the service runs comes from, when it is missing: one
 * copy for `npm start` (src/cli/start-packages.ts) and `npm test` (test/setup/prepare.ts). Only
 * as root and with apt-get (docs/configuration.md, "Capabilities"); otherwise it says why not.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

/** Runs `apt-get <args>` (the found binary at `apt`); true when it exited 0. */
export type AptRunner = (apt: string, args: string[]) => boolean;

/** What {@link ensureDebianPackage} may use; every field has a default for the real machine. */
export interface DebianPackageDeps {
  /** Prints one step ("running: apt-get install …", "installed …"). */
  log: (line: string) => void;
  /** Default: spawnSync of `apt` with inherited output and `DEBIAN_FRONTEND=noninteractive`. */
  run?: AptRunner;
  /** Default: `fs.existsSync`. */
  exists?: (file: string) => boolean;
  /** Default: `process.getuid() === 0`. */
  isRoot?: boolean;
}

/** Whether a program is there after {@link ensureDebianPackage}; when not, why it could not be installed. */
export type PackageOutcome = { present: true; installed: boolean } | { present: false; reason: string };

/** Where apt-get is looked for. */
const APT_PATHS = ['/usr/bin/apt-get', '/bin/apt-get'];

/** The real apt-get: output shown, never a question asked. */
const spawnApt: AptRunner = (apt, args) => spawnSync(apt, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;

/**
 * Makes sure `file` exists: when it is missing and this runs as root with apt-get, installs the
 * Debian package `pkg` (`apt-get install -y --no-install-recommends`, updating the package lists
 * once if the first install fails: a fresh container has none). Prints each step through `log`.
 * @returns present (and whether it was installed now), or absent with the reason: `not root`,
 *   `apt-get not found`, `apt-get install <pkg> failed`, or `<pkg> installed but <file> is still missing`
 */
export function ensureDebianPackage(file: string, pkg: string, deps: DebianPackageDeps): PackageOutcome {
  const exists = deps.exists ?? fs.existsSync;
  if (exists(file)) return { present: true, installed: false };
  const apt = APT_PATHS.find((p) => exists(p));
  const isRoot = deps.isRoot ?? process.getuid?.() === 0;
  if (!isRoot || !apt) {
    const reason = !isRoot ? 'not root' : 'apt-get not found';
    deps.log(`${file} is missing and ${pkg} cannot be installed here (${reason}; needs root and apt-get)`);
    return { present: false, reason };
  }
  const runApt = deps.run ?? spawnApt;
  const run = (args: string[]): boolean => {
    deps.log(`running: apt-get ${args.join(' ')}`);
    return runApt(apt, args);
  };
  const install = ['install', '-y', '--no-install-recommends', pkg];
  if (!(run(install) || (run(['update']) && run(install)))) {
    deps.log(`installing ${pkg} failed`);
    return { present: false, reason: `apt-get install ${pkg} failed` };
  }
  if (!exists(file)) {
    deps.log(`installed ${pkg}, but ${file} is still missing`);
    return { present: false, reason: `${pkg} installed but ${file} is still missing` };
  }
  deps.log(`installed ${pkg}: ${file}`);
  return { present: true, installed: true };
}
