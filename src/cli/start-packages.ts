/**
 * `npm start`'s package step (docs/configuration.md, "Capabilities"): the programs the service
 * runs that come from Debian packages (bubblewrap and python3 for flows' Python sandbox, chromium
 * for rendering), installed when missing as `npm test` does (src/lib/debian-packages.ts), unless
 * `START_INSTALL_PACKAGES=false`. What stays missing is reported as a capability that is off,
 * with why it could not be installed; the service starts either way.
 */
import fs from 'node:fs';
import type { Config } from '../config';
import { ensureDebianPackage, type DebianPackageDeps } from '../lib/debian-packages';
import type { CapabilityName } from '../services/capabilities';

/** A program the service runs, the Debian package it comes from, and the capability that needs it. */
export interface ServicePackage {
  file: string;
  pkg: string;
  capability: CapabilityName;
}

/** The programs of `config` (Chromium only when RENDER_CONCURRENCY > 0: rendering is off otherwise). */
export function servicePackages(config: Pick<Config, 'pythonSandbox' | 'render'>): ServicePackage[] {
  const packages: ServicePackage[] = [
    { file: config.pythonSandbox.bwrapPath, pkg: 'bubblewrap', capability: 'python_flows' },
    { file: config.pythonSandbox.pythonPath, pkg: 'python3', capability: 'python_flows' },
  ];
  if (config.render.concurrency > 0) packages.push({ file: config.render.chromiumPath, pkg: 'chromium', capability: 'rendering' });
  return packages;
}

/**
 * Makes sure each of {@link servicePackages} is there, printing each step through `deps.log`:
 * installs a missing one (as root with apt-get), or with `startInstallPackages` false
 * (`START_INSTALL_PACKAGES=false`) only says it is missing and never runs apt-get.
 * @returns for each program still missing, its path → why it was not installed (`not root`,
 *   `apt-get not found`, `START_INSTALL_PACKAGES=false`, …): the capability report's `notInstalled`
 */
export function ensureServicePackages(
  config: Pick<Config, 'pythonSandbox' | 'render' | 'startInstallPackages'>,
  deps: DebianPackageDeps,
): Record<string, string> {
  const exists = deps.exists ?? fs.existsSync;
  const notInstalled: Record<string, string> = {};
  for (const p of servicePackages(config)) {
    if (exists(p.file)) {
      deps.log(`${p.pkg}: ${p.file}`);
      continue;
    }
    if (!config.startInstallPackages) {
      deps.log(`${p.file} is missing; not installing ${p.pkg} (START_INSTALL_PACKAGES=false): ${p.capability} is off`);
      notInstalled[p.file] = 'START_INSTALL_PACKAGES=false';
      continue;
    }
    const outcome = ensureDebianPackage(p.file, p.pkg, deps);
    if (!outcome.present) {
      deps.log(`${p.capability} is off: ${p.pkg} missing at ${p.file}`);
      notInstalled[p.file] = outcome.reason;
    }
  }
  return notInstalled;
}
