/**
 * What this deployment can do, each capability `on` or `off` with the reason (docs/configuration.md,
 * "Capabilities"): computed from the configuration and the programs on this machine, with no
 * database. The `npm start` banner, the API's and the worker's start logs and `GET /readyz` list
 * it; a request that needs a capability that is off is refused at once ({@link assertCapabilityOn},
 * 503) instead of failing later in a workflow.
 *
 * The API checks the programs of its own machine: API and worker are meant to run from the same
 * image or machine (`npm start`, the Docker image), as the worker runs what the API accepts.
 */
import type { Config } from '../config';
import { CapabilityOffError } from '../lib/errors';
import { chromiumAvailable } from '../enrichment/providers/renderer';
import { isExecutable, missingSandboxProgram, sandboxPrograms, sandboxUid } from '../sandbox/sandbox-command';
import { configuredSources } from './research-archives/sources';

/** Every capability, in the order reports list them. */
export const CAPABILITY_NAMES = ['research', 'item_urls', 'rendering', 'python_flows', 'llm', 'blob_store'] as const;

/** One capability's name. */
export type CapabilityName = (typeof CAPABILITY_NAMES)[number];

/** A capability's state and why: what serves it when `on`, what is missing when `off`. */
export interface Capability {
  state: 'on' | 'off';
  reason: string;
}

/** Every capability by name (the `capabilities` object of `GET /readyz`). */
export type CapabilityReport = Record<CapabilityName, Capability>;

/**
 * How the report looks at this machine; tests and `npm start` pass their own. `executable`: whether a
 * program exists and may be run (default: `access(X_OK)`); `runAsUid`: the uid the sandbox drops
 * to (default: src/sandbox/sandbox-command.ts sandboxUid); `notInstalled`: for a missing program's
 * path, why `npm start` could not install it (src/cli/start-packages.ts), added to the reason.
 */
export interface CapabilityProbe {
  executable?: (file: string) => boolean;
  runAsUid?: number | null;
  notInstalled?: Record<string, string>;
}

const on = (reason: string): Capability => ({ state: 'on', reason });
const off = (reason: string): Capability => ({ state: 'off', reason });

/** `<reason>, could not be installed: <why>` when `npm start` tried to install `file` and could not. */
function withInstallNote(reason: string, file: string, probe: CapabilityProbe): string {
  const why = probe.notInstalled?.[file];
  return why ? `${reason}, could not be installed: ${why}` : reason;
}

/**
 * Web research sources of the configuration (src/services/research-archives/sources.ts): a live
 * search provider with its setting, or configured archives. Off when there is neither: jobs then
 * read the items' own data and urls, and the archives an organization uploads.
 */
export function researchCapability(config: Pick<Config, 'search' | 'researchArchives'>): Capability {
  const { search } = config;
  if (search.provider === 'searxng')
    return search.searxngUrl ? on(`live web search: SearXNG at ${search.searxngUrl}`) : off('SEARCH_PROVIDER=searxng needs SEARXNG_URL');
  if (search.provider === 'brave') return search.braveApiKey ? on('live web search: Brave Search API') : off('SEARCH_PROVIDER=brave needs BRAVE_API_KEY');
  const sources = configuredSources(config);
  const parts = [
    ...(sources.archive_folders.length ? [`${sources.archive_folders.length} archive folder(s)`] : []),
    ...(sources.archive_files.length ? [`${sources.archive_files.length} WARC/WACZ file(s)`] : []),
  ];
  if (parts.length) return on(`configured archives (RESEARCH_ARCHIVES): ${parts.join(', ')}`);
  return off('no search provider and no configured archive (SEARCH_PROVIDER, RESEARCH_ARCHIVES); uploaded archives are still researched');
}

/** Items' own `url`s fetched live (`FETCH_ITEM_URLS`, config `fetch.itemUrls`). */
export function itemUrlsCapability(config: { fetch: Pick<Config['fetch'], 'itemUrls'> }): Capability {
  return config.fetch.itemUrls
    ? on("items' own url pages are fetched live, robots.txt obeyed, with or without a search provider (FETCH_ITEM_URLS)")
    : off('FETCH_ITEM_URLS=false: item pages are read only from web archives');
}

/**
 * Rendering of pages that build their product data with JavaScript (docs/research.md, "The live
 * web"), as the worker decides it (temporal/worker.ts): off with RENDER_CONCURRENCY=0, without
 * Chromium at CHROMIUM_PATH, or when no page is fetched live (no live search provider and
 * FETCH_ITEM_URLS=false: pages then come from archives).
 */
export function renderingCapability(config: Pick<Config, 'render' | 'search' | 'fetch'>, probe: CapabilityProbe = {}): Capability {
  const chromium = config.render.chromiumPath;
  if (config.render.concurrency === 0) return off('RENDER_CONCURRENCY=0');
  const present = probe.executable ? probe.executable(chromium) : chromiumAvailable(chromium);
  if (!present) return off(withInstallNote(`Chromium missing at ${chromium}`, chromium, probe));
  if (config.search.provider === 'archive' && !config.fetch.itemUrls)
    return off(`no page is fetched live (SEARCH_PROVIDER=archive and FETCH_ITEM_URLS=false): pages come from archives; Chromium at ${chromium}`);
  return on(`Chromium at ${chromium}, ${config.render.concurrency} page(s) at once per worker`);
}

/**
 * Flows' custom_code nodes (docs/sandbox.md, "The Python sandbox"): on when every program of the
 * sandbox is there (bubblewrap at PYTHON_SANDBOX_BWRAP, python3 at PYTHON_SANDBOX_PYTHON, prlimit,
 * setpriv as root), else off naming the first one missing.
 */
export function pythonFlowsCapability(config: Pick<Config, 'pythonSandbox'>, probe: CapabilityProbe = {}): Capability {
  const { bwrapPath, pythonPath } = config.pythonSandbox;
  const uid = probe.runAsUid === undefined ? sandboxUid() : probe.runAsUid;
  const missing = missingSandboxProgram(bwrapPath, pythonPath, uid, probe.executable ?? isExecutable);
  if (missing) return off(missing.program ? withInstallNote(missing.message, missing.program.file, probe) : missing.message);
  const [bwrap, python] = sandboxPrograms(bwrapPath, pythonPath, uid);
  return on(`bubblewrap at ${bwrap.file}, python3 at ${python.file}`);
}

/** The LLM step: a model endpoint (OPENAI_BASE_URL) or rules only. */
export function llmCapability(config: Pick<Config, 'llm'>): Capability {
  return config.llm ? on(`model ${config.llm.model} at ${config.llm.baseUrl}`) : off('rules only: no model endpoint (OPENAI_BASE_URL)');
}

/** Where shared files are kept (docs/configuration.md, "Blob store"): always on, naming the backend. */
export function blobStoreCapability(config: Pick<Config, 'blobStore'>): Capability {
  const b = config.blobStore;
  if (b.backend === 'filesystem') return on(`local folder ${b.root}`);
  return on(`S3 bucket ${b.bucket} at ${b.endpoint ?? `AWS ${b.region}`}`);
}

/** Every capability of `config` on this machine (see the file comment). */
export function capabilityReport(config: Config, probe: CapabilityProbe = {}): CapabilityReport {
  return {
    research: researchCapability(config),
    item_urls: itemUrlsCapability(config),
    rendering: renderingCapability(config, probe),
    python_flows: pythonFlowsCapability(config, probe),
    llm: llmCapability(config),
    blob_store: blobStoreCapability(config),
  };
}

/** One line per capability, `name  on|off  (reason)`, names padded to one column: the banner's and the logs' form. */
export function capabilityLines(report: CapabilityReport): string[] {
  const width = Math.max(...CAPABILITY_NAMES.map((n) => n.length));
  return CAPABILITY_NAMES.map((name) => `${name.padEnd(width)}  ${report[name].state.padEnd(3)}  (${report[name].reason})`);
}

/** `name state` of every capability on one line, for a log message (the reasons go in the log's fields). */
export function capabilitySummary(report: CapabilityReport): string {
  return CAPABILITY_NAMES.map((name) => `${name} ${report[name].state}`).join(', ');
}

/**
 * Refuses a request that needs `name` when it is off.
 * @param what what in the request needs it, e.g. "this flow has a custom_code node"
 * @throws CapabilityOffError (503) naming the capability, its reason and `what`
 */
export function assertCapabilityOn(name: CapabilityName, capability: Capability, what: string): void {
  if (capability.state === 'off') throw new CapabilityOffError(name, capability.reason, what);
}
