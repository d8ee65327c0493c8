/**
 * `npm start`'s package step and banner (src/cli/start-packages.ts, src/cli/start-banner.ts) and
 * the capability report they show (src/services/capabilities.ts), as pure functions: apt-get is an
 * injected runner and the machine's files an injected `exists`, so nothing is installed here.
 */
import { loadConfig } from '../../../src/config';
import { ensureDebianPackage } from '../../../src/lib/debian-packages';
import { startBanner } from '../../../src/cli/start-banner';
import { ensureServicePackages } from '../../../src/cli/start-packages';
import { capabilityReport, type CapabilityReport } from '../../../src/services/capabilities';

const MISSING_BWRAP = '/nonexistent/start-test/bwrap';

/** A fake machine: `present` files exist (apt-get among them when given); apt-get calls are recorded and succeed by adding `provides`. */
function machine(present: string[], provides: Record<string, string> = {}) {
  const files = new Set(present);
  const calls: string[][] = [];
  const lines: string[] = [];
  return {
    calls,
    lines,
    deps: (isRoot: boolean) => ({
      log: (line: string) => lines.push(line),
      exists: (file: string) => files.has(file),
      isRoot,
      run: (_apt: string, args: string[]) => {
        calls.push(args);
        const pkg = args[args.length - 1];
        if (args[0] === 'install' && provides[pkg]) files.add(provides[pkg]);
        return true;
      },
    }),
  };
}

describe("npm start's package step", () => {
  const config = loadConfig({
    ...process.env,
    PYTHON_SANDBOX_BWRAP: MISSING_BWRAP,
    PYTHON_SANDBOX_PYTHON: '/usr/bin/python3',
    CHROMIUM_PATH: '/usr/bin/chromium',
  });

  it('does not run apt-get when START_INSTALL_PACKAGES=false, and reports each missing program as not installed', () => {
    const m = machine(['/usr/bin/apt-get', '/usr/bin/python3'], { bubblewrap: MISSING_BWRAP, chromium: '/usr/bin/chromium' });
    const off = loadConfig({
      ...process.env,
      START_INSTALL_PACKAGES: 'false',
      PYTHON_SANDBOX_BWRAP: MISSING_BWRAP,
      PYTHON_SANDBOX_PYTHON: '/usr/bin/python3',
      CHROMIUM_PATH: '/usr/bin/chromium',
    });
    expect(off.startInstallPackages).toBe(false);
    const notInstalled = ensureServicePackages(off, m.deps(true));
    expect(m.calls).toEqual([]);
    expect(notInstalled).toEqual({ [MISSING_BWRAP]: 'START_INSTALL_PACKAGES=false', '/usr/bin/chromium': 'START_INSTALL_PACKAGES=false' });
    expect(m.lines).toContain(`${MISSING_BWRAP} is missing; not installing bubblewrap (START_INSTALL_PACKAGES=false): python_flows is off`);
    expect(m.lines).toContain('python3: /usr/bin/python3');
  });

  it('installs what is missing as root with apt-get (by default), printing each step', () => {
    expect(config.startInstallPackages).toBe(true);
    const m = machine(['/usr/bin/apt-get', '/usr/bin/python3'], { bubblewrap: MISSING_BWRAP, chromium: '/usr/bin/chromium' });
    expect(ensureServicePackages(config, m.deps(true))).toEqual({});
    expect(m.calls).toEqual([
      ['install', '-y', '--no-install-recommends', 'bubblewrap'],
      ['install', '-y', '--no-install-recommends', 'chromium'],
    ]);
    expect(m.lines).toContain(`installed bubblewrap: ${MISSING_BWRAP}`);
  });

  it('says why when it cannot install: not root, or no apt-get; and never installs Chromium with RENDER_CONCURRENCY=0', () => {
    const notRoot = machine(['/usr/bin/apt-get', '/usr/bin/python3', '/usr/bin/chromium']);
    expect(ensureServicePackages(config, notRoot.deps(false))).toEqual({ [MISSING_BWRAP]: 'not root' });
    expect(notRoot.calls).toEqual([]);
    const noApt = machine(['/usr/bin/python3']);
    const noRender = loadConfig({ ...process.env, PYTHON_SANDBOX_BWRAP: MISSING_BWRAP, PYTHON_SANDBOX_PYTHON: '/usr/bin/python3', RENDER_CONCURRENCY: '0' });
    expect(ensureServicePackages(noRender, noApt.deps(true))).toEqual({ [MISSING_BWRAP]: 'apt-get not found' });
  });

  it('updates the package lists once when the first install fails, and reports a failed install', () => {
    const calls: string[][] = [];
    const outcome = ensureDebianPackage('/x/bwrap', 'bubblewrap', {
      log: () => undefined,
      exists: (f) => f === '/usr/bin/apt-get',
      isRoot: true,
      run: (_apt, args) => (calls.push(args), args[0] === 'update'),
    });
    expect(outcome).toEqual({ present: false, reason: 'apt-get install bubblewrap failed' });
    expect(calls.map((c) => c[0])).toEqual(['install', 'update', 'install']);
  });
});

describe('the capability report and the start banner', () => {
  const config = loadConfig({ ...process.env, PYTHON_SANDBOX_BWRAP: MISSING_BWRAP, OPENAI_BASE_URL: '', SEARCH_PROVIDER: 'archive', RESEARCH_ARCHIVES: ':' });

  it('reports python_flows off naming the missing bubblewrap and why npm start could not install it', () => {
    const report = capabilityReport(config, { notInstalled: { [MISSING_BWRAP]: 'not root' } });
    expect(report.python_flows).toEqual({ state: 'off', reason: `bubblewrap missing at ${MISSING_BWRAP}, could not be installed: not root` });
    expect(report.llm).toEqual({ state: 'off', reason: 'rules only: no model endpoint (OPENAI_BASE_URL)' });
    expect(report.research.state).toBe('off');
    expect(report.item_urls.state).toBe('on');
    expect(report.blob_store).toEqual({ state: 'on', reason: `local folder ${config.dataDir}` });
    // The machine's own programs: present after the set-up.
    expect(capabilityReport(loadConfig()).python_flows.state).toBe('on');
  });

  it('lists every capability with its state and reason in the banner', () => {
    const report: CapabilityReport = capabilityReport(config, { notInstalled: { [MISSING_BWRAP]: 'not root' }, executable: (f) => f !== MISSING_BWRAP });
    const text = startBanner({
      up: true,
      readiness: { ready: true, checks: { postgres: 'ok', temporal: 'ok', worker: 'ok' } },
      research: ['uploaded web archives (POST /api/public/research-archives), per organization'],
      capabilities: report,
      publicUrl: 'http://127.0.0.1:8080',
      temporalUiUrl: 'http://127.0.0.1:8233',
      apiKey: 'ck_test',
      keyFile: '.data/dev-api-key',
    });
    expect(text).toContain('Catalog enrichment service is running.');
    expect(text).toContain(`  Capabilities: research      off  (no search provider and no configured archive`);
    expect(text).toContain(`\n                python_flows  off  (bubblewrap missing at ${MISSING_BWRAP}, could not be installed: not root)\n`);
    // Item URLs are fetched live with no search provider, so their pages are rendered.
    expect(text).toContain('\n                rendering     on   (Chromium at /usr/bin/chromium, ');
    const offline = capabilityReport(loadConfig({ ...process.env, SEARCH_PROVIDER: 'archive', FETCH_ITEM_URLS: 'false' }), { executable: () => true });
    expect(offline.rendering).toEqual({
      state: 'off',
      reason: 'no page is fetched live (SEARCH_PROVIDER=archive and FETCH_ITEM_URLS=false): pages come from archives; Chromium at /usr/bin/chromium',
    });
    expect(text).toContain('\n                item_urls     on   (');
    expect(text).toContain('\n                llm           off  (rules only: no model endpoint (OPENAI_BASE_URL))\n');
    expect(text).toContain('\n                blob_store    on   (local folder ');
    expect(text).toContain('readiness and capabilities: http://127.0.0.1:8080/readyz');

    const notReady = startBanner({ ...bannerBase(report), readiness: { ready: false, checks: { postgres: 'ok', worker: 'error: no worker' } } });
    expect(notReady).toContain('The API answers but is not ready (worker: error: no worker); the logs are above.');
  });
});

function bannerBase(capabilities: CapabilityReport) {
  return { up: true, readiness: null, research: [], capabilities, publicUrl: 'http://x', temporalUiUrl: null, apiKey: 'k', keyFile: 'f' };
}
