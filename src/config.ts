import fs from 'node:fs';
import path from 'node:path';

/**
 * Limits, identity and politeness of the live fetcher (src/enrichment/providers/http-fetcher.ts;
 * config `fetch`, env `FETCH_*`; docs/configuration.md).
 */
export interface HttpFetcherOptions {
  /** One request (one redirect hop) incl. its body, ms (`FETCH_TIMEOUT_MS`, default 15000). */
  timeoutMs: number;
  /** TCP + TLS connect per connection, ms (`FETCH_CONNECT_TIMEOUT_MS`, default 5000). */
  connectTimeoutMs: number;
  /** Body bytes read at most per response (`FETCH_MAX_BYTES`, default 5 MiB). */
  maxBytes: number;
  /** Redirects followed at most (`FETCH_MAX_REDIRECTS`, default 5). */
  maxRedirects: number;
  /** Requests in flight per host at most, over all workers (`FETCH_PER_HOST_CONCURRENCY`, default 2). */
  perHostConcurrency: number;
  /** User-Agent header; its product token is what robots.txt groups match (`FETCH_USER_AGENT`). */
  userAgent: string;
  /** Allow loopback/private/link-local targets; for tests and closed networks only (`FETCH_ALLOW_PRIVATE`, default false). */
  allowPrivate: boolean;
  /** Least time between two request starts to one host, over all workers, ms (`FETCH_HOST_INTERVAL_MS`, default 1000). */
  hostIntervalMs: number;
  /** Largest robots.txt `Crawl-delay` honoured, s (`FETCH_CRAWL_DELAY_MAX_S`, default 30); longer delays are cut to it. */
  crawlDelayMaxS: number;
  /** A page fetched this recently is reused from its stored capture without a request, s (`FETCH_MAX_AGE_S`, default 172800 = 2 days). */
  maxAgeS: number;
  /** How long a host's robots.txt is reused, s (`FETCH_ROBOTS_CACHE_S`, default and at most 86400: RFC 9309 §2.4). */
  robotsCacheS: number;
  /** Longest `Retry-After` the fetcher reschedules for, s (`FETCH_RETRY_AFTER_MAX_S`, default 600); longer is a `server_error`. */
  retryAfterMaxS: number;
}

/**
 * The service's whole configuration, read once from the environment by {@link loadConfig}.
 * Nothing else in the code base reads `process.env` (docs/architecture.md "Map of folders": config.ts).
 */
export interface Config {
  /** HTTP port of the API (env `PORT`, default 8080). */
  port: number;
  /** Public base URL used in links such as `review_url` and `results_url` (env `PUBLIC_URL`). */
  publicUrl: string;
  /** PostgreSQL connection string (env `DATABASE_URL`). */
  databaseUrl: string;
  /** Temporal frontend `host:port` (env `TEMPORAL_ADDRESS`, default 127.0.0.1:7233). */
  temporalAddress: string;
  /** Temporal namespace (env `TEMPORAL_NAMESPACE`, default `default`). */
  temporalNamespace: string;
  /** Task queue shared by the API (client) and the worker (env `TEMPORAL_TASK_QUEUE`). */
  taskQueue: string;
  /** Whether `npm start` should start a local Temporal dev server (false when TEMPORAL_ADDRESS is set). */
  startLocalTemporal: boolean;
  /**
   * Whether `npm start` installs the Debian packages of missing programs the service uses
   * (bubblewrap, python3, chromium; as root with apt-get) (env `START_INSTALL_PACKAGES`, default
   * true; docs/configuration.md, "Capabilities").
   */
  startInstallPackages: boolean;
  /**
   * Folder for local state: dev-server SQLite file, pid files, uploads being parsed, and by default
   * the filesystem blob store (env `DATA_DIR`, default `.data`).
   */
  dataDir: string;
  /**
   * Where files every process must reach are kept: uploaded research archives, source artifacts
   * and evidence WARCs, hosted media, knowledge-base files (docs/configuration.md).
   * The filesystem under `BLOB_DIR` (default `DATA_DIR`) unless `S3_BUCKET` is set.
   */
  blobStore: BlobStoreSettings;
  /** Directory outside the clone where the Temporal CLI binary is cached (env `TEMPORAL_CLI_CACHE`). */
  temporalCliCache: string;
  /**
   * Web archives configured for research (env `RESEARCH_ARCHIVES`, colon-separated): folders with
   * page-index.json, and `.warc`, `.warc.gz` or `.wacz` files (indexed into PostgreSQL at worker
   * start, once per content hash; docs/research.md). Default: the archives of the shared test data
   * when present ({@link defaultArchives}), none in a clone without it.
   */
  researchArchives: string[];
  /**
   * The shared test and demo data folder (env `SHARED_DATA_DIR`, default `../shared/data` next to
   * the clone): only where the default archives and taxonomy are looked for; the service runs
   * without it.
   */
  sharedDataDir: string;
  /**
   * Grid field indexes (src/services/catalog/grid/grid-indexes.ts): catalogs of at least `minItems`
   * items (env `GRID_INDEX_MIN_ITEMS`, default 100,000) get a per-catalog index of a field the
   * grid sorts or filters on, at most `maxPerCatalog` per catalog (env `GRID_INDEX_MAX_PER_CATALOG`,
   * default 8).
   */
  gridIndexes: { minItems: number; maxPerCatalog: number };
  /**
   * The console grid shows the planner's estimate instead of counting when it expects at least
   * this many matches (env `GRID_COUNT_ESTIMATE_ABOVE`; null: the service's rule, 5 × the count
   * cap = 50,000, src/services/catalog/grid/item-grid.ts `ESTIMATE_ABOVE`).
   */
  gridCountEstimateAbove: number | null;
  /** Items processed at once by one enrichment job (env `ENRICH_CONCURRENCY`, default 8). */
  enrichConcurrency: number;
  /** API key to create for the development organization on first start (env `BOOTSTRAP_API_KEY`). */
  bootstrapApiKey: string | null;
  /** HS256 secret for user tokens (JWT); user tokens are refused when null (env `JWT_SECRET`). */
  jwtSecret: string | null;
  /** Allow plain-http loopback webhook URLs, for development (env `ALLOW_HTTP_WEBHOOKS`). */
  allowHttpWebhooks: boolean;
  /**
   * OpenID Connect sign-in of people; null when `OIDC_ISSUER` is unset. `issuer`
   * (env `OIDC_ISSUER`, discovered at `/.well-known/openid-configuration`), `clientId` /
   * `clientSecret` (env `OIDC_CLIENT_ID`, `OIDC_CLIENT_SECRET`), `providerName` on the sign-in
   * button (env `OIDC_PROVIDER_NAME`, default the issuer's host); `role` (env `OIDC_ROLE`) and
   * `organizationId` (env `OIDC_ORGANIZATION_ID`): when both are set, someone the provider
   * vouches for who is not a person yet becomes one with that role; otherwise only people created
   * beforehand (matched by verified email) may sign in.
   */
  oidc: { issuer: string; clientId: string; clientSecret: string; providerName: string; role: string | null; organizationId: string | null } | null;
  /**
   * OpenAI-compatible endpoint for the LLM path; null disables it (env `OPENAI_BASE_URL`,
   * `OPENAI_API_KEY`, `OPENAI_MODEL`; `OPENAI_TIMEOUT_MS` per request, default 60000;
   * `OPENAI_MAX_RETRIES` on 408/409/429/5xx and network errors, default 2). A job's `speed`
   * picks the model (`OPENAI_MODEL_CHEAP`, `OPENAI_MODEL_FAST`, `OPENAI_MODEL_DEEP`, each falling
   * back to `OPENAI_MODEL`) and, with `OPENAI_REASONING=true` (reasoning models), the reasoning
   * effort: src/enrichment/llm/speed.ts, docs/configuration.md.
   */
  llm: LlmSettings | null;
  /**
   * Google product taxonomy file (`taxonomy-with-ids.<locale>.txt`) that schema inference maps
   * titles onto and through which enrichment predicts into a catalog's own tree (env
   * `GOOGLE_TAXONOMY_FILE`; default the copy shipped in src/enrichment/taxonomy/data); null (an
   * install without that copy): taxonomies are only proposed from category columns and trees are
   * predicted into by their names alone.
   */
  googleTaxonomyFile?: string | null;
  /**
   * Web search for research (env `SEARCH_PROVIDER`: `archive` = the offline archives, the
   * default; `searxng` needs `SEARXNG_URL`; `brave` needs `BRAVE_API_KEY`, endpoint
   * `BRAVE_API_URL`; `SEARCH_TIMEOUT_MS` per call, default 10000).
   */
  search: { provider: 'archive' | 'searxng' | 'brave'; searxngUrl: string | null; braveApiKey: string | null; braveApiUrl: string; timeoutMs: number };
  /**
   * Live page fetching (docs/research.md, "The live web"; "An item's own page"): the pages a live
   * search provider finds, and in every configuration the pages items name themselves (`url`,
   * `product_url`, `source_url`, source hint URLs) unless `itemUrls` is false (env `FETCH_TIMEOUT_MS` total per page
   * incl. redirects, default 15000; `FETCH_CONNECT_TIMEOUT_MS` default 5000; `FETCH_MAX_BYTES`
   * default 5 MiB; `FETCH_MAX_REDIRECTS` default 5; `FETCH_PER_HOST_CONCURRENCY` default 2;
   * `FETCH_USER_AGENT`; `FETCH_ALLOW_PRIVATE` lets it reach loopback/private addresses, for
   * tests and closed networks only, default false).
   */
  fetch: HttpFetcherOptions & {
    retryAttempts: number;
    /**
     * Whether the live fetcher reads the pages items name themselves, whatever `SEARCH_PROVIDER`
     * is (`FETCH_ITEM_URLS`, default true; false for sites that must not reach the web: item URLs
     * are then read only from web archives and jobs say so in their notices).
     */
    itemUrls: boolean;
  };
  /**
   * Rendering of pages that build their product data with JavaScript (docs/research.md, "The live
   * web"): headless Chromium at `chromiumPath` (env `CHROMIUM_PATH`, default `/usr/bin/chromium`;
   * missing = no rendering, with a notice), `concurrency` pages at once per worker (env
   * `RENDER_CONCURRENCY`, default 1; 0 turns rendering off), browser recycled after
   * `pagesPerBrowser` pages (env `RENDER_RECYCLE_PAGES`, default 20).
   */
  render: { chromiumPath: string; concurrency: number; pagesPerBrowser: number };
  /** pino log level (env `LOG_LEVEL`, default `info`). */
  logLevel: string;
  /**
   * Limits per organization and per API key (src/services/access/rate-limits.ts):
   * requests per second with a burst (0 = no request limit), failed authentications per client
   * IP per minute, running async jobs per organization (0 = no limit), credits per organization
   * per calendar month (null = no quota).
   */
  limits: { requestsPerSecond: number; burst: number; authFailuresPerMinute: number; concurrentJobs: number; monthlyCredits: number | null };
  /**
   * Worker metrics: `workerMetricsPort` serves this service's worker metrics (jobs,
   * items, credits, engine and activity latency, webhooks) as Prometheus text at
   * `http://<host>:<port>/metrics` (env WORKER_METRICS_PORT; null = off); `temporalMetricsAddress`
   * is where the Temporal SDK exports its own worker metrics (env TEMPORAL_METRICS_ADDRESS,
   * `host:port`; null = off).
   */
  workerMetricsPort: number | null;
  temporalMetricsAddress: string | null;
  /** When set, `GET /metrics` requires `Authorization: Bearer <metricsToken>` (env METRICS_TOKEN). */
  metricsToken: string | null;
  /** The Python sandbox of flows' custom_code nodes (docs/sandbox.md, "The Python sandbox"). */
  pythonSandbox: PythonSandboxConfig;
}

/** The LLM endpoint and models of {@link Config.llm} (the engine's `LlmConfig`). */
export interface LlmSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs?: number;
  maxRetries?: number;
  /** Models per speed tier; an absent one falls back to `model` (cheap to fast first). */
  models?: { cheap?: string; fast?: string; deep?: string };
  /** The models take `reasoning_effort` (and no temperature): each call sends the effort of its speed tier. */
  reasoning?: boolean;
}

/**
 * Where the Python sandbox finds its programs and how much memory a custom_code node gets
 * (docs/sandbox.md, "The Python sandbox"). The sandbox refuses to run code when either program is
 * missing; it never falls back to an unconfined interpreter.
 */
export interface PythonSandboxConfig {
  /** bubblewrap executable (env `PYTHON_SANDBOX_BWRAP`, default `/usr/bin/bwrap`, Debian package `bubblewrap`). */
  bwrapPath: string;
  /** CPython interpreter run inside the sandbox (env `PYTHON_SANDBOX_PYTHON`, default `/usr/bin/python3`, Debian's). */
  pythonPath: string;
  /** Address-space limit of one node's interpreter in bytes (env `PYTHON_SANDBOX_MEMORY_MB`, in MiB, default 512). */
  memoryBytes: number;
}

/**
 * Root of this repository: the nearest folder above this file holding package.json. Found by
 * walking up rather than a fixed `..` because the same code runs from `src/` (tsx, Jest) and
 * from `dist/src/` (the production build, `npm run build`), and `.data` or `../shared/data`
 * are meant relative to the clone, not to `dist/`.
 */
export const REPO_ROOT = packageRoot(__dirname);

/** The nearest folder at or above `dir` holding package.json; `dir/..` when there is none. */
function packageRoot(dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'package.json'))) return d;
    if (path.dirname(d) === d) return path.resolve(dir, '..');
  }
}

function bool(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  return ['1', 'true', 'yes', 'on'].includes(value.toLowerCase());
}

function int(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(value)}`);
  return n;
}

/**
 * `SEARCH_PROVIDER` as a provider name; empty means `archive`.
 * @throws Error for any other value
 */
function searchProvider(value: string | undefined): Config['search']['provider'] {
  const v = (value ?? '').trim().toLowerCase() || 'archive';
  if (v === 'archive' || v === 'searxng' || v === 'brave') return v;
  throw new Error(`SEARCH_PROVIDER must be archive, searxng or brave, got ${JSON.stringify(value)}`);
}

/**
 * The archives of the shared data folder `shared` (default `../shared/data`) that exist on this
 * machine (evaluation.md, "The offline web archive"); none when the folder is absent.
 */
export function defaultArchives(shared: string = path.resolve(REPO_ROOT, '..', 'shared', 'data')): string[] {
  return ['zyte-product-extraction', 'pages/metascraper-shopping']
    .map((rel) => path.join(shared, rel))
    .filter((dir) => fs.existsSync(path.join(dir, 'page-index.json')));
}

/**
 * The Google product taxonomy shipped with the service (src/enrichment/taxonomy/data/README.md;
 * copied beside the compiled code by `npm run build`), or null if an install lacks it.
 */
export function bundledGoogleTaxonomy(): string | null {
  const file = path.join(__dirname, 'enrichment', 'taxonomy', 'data', 'taxonomy-with-ids.en-US.txt');
  return fs.existsSync(file) ? file : null;
}

/**
 * Which blob store backend to use (src/lib/blob-stores.ts): a folder (one machine, or a volume
 * every container mounts), or an S3-compatible bucket (AWS S3, MinIO) that every process reaches.
 */
export type BlobStoreSettings =
  | { backend: 'filesystem'; root: string }
  | {
      backend: 's3';
      /** `S3_ENDPOINT`, e.g. `http://minio:9000`; null: the AWS endpoint of the region. */
      endpoint: string | null;
      /** `S3_BUCKET`. */
      bucket: string;
      /** `S3_REGION`, default `us-east-1`. */
      region: string;
      /** `S3_ACCESS_KEY_ID` / `S3_SECRET_ACCESS_KEY`; null: the SDK's default credential chain. */
      accessKeyId: string | null;
      secretAccessKey: string | null;
      /** `S3_FORCE_PATH_STYLE` (`http://host/bucket/key` addressing, which MinIO needs), default true with an endpoint. */
      forcePathStyle: boolean;
    };

/** The blob store of an environment: S3 when `S3_BUCKET` is set, else the folder `BLOB_DIR` (default `dataDir`). */
function blobStoreSettings(env: NodeJS.ProcessEnv, dataDir: string): BlobStoreSettings {
  if (!env.S3_BUCKET) return { backend: 'filesystem', root: env.BLOB_DIR ? path.resolve(REPO_ROOT, env.BLOB_DIR) : dataDir };
  const endpoint = env.S3_ENDPOINT || null;
  return {
    backend: 's3',
    endpoint,
    bucket: env.S3_BUCKET,
    region: env.S3_REGION || 'us-east-1',
    accessKeyId: env.S3_ACCESS_KEY_ID || null,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY || null,
    forcePathStyle: bool(env.S3_FORCE_PATH_STYLE, endpoint !== null),
  };
}

/** The OpenID Connect settings (Config.oidc) of an environment; null without `OIDC_ISSUER`. */
function oidcSettings(env: NodeJS.ProcessEnv): Config['oidc'] {
  if (!env.OIDC_ISSUER) return null;
  if (!env.OIDC_CLIENT_ID) throw new Error('OIDC_CLIENT_ID is required with OIDC_ISSUER');
  const role = env.OIDC_ROLE || null;
  if (role && !['viewer', 'editor', 'reviewer', 'admin'].includes(role)) throw new Error('OIDC_ROLE is one of viewer, editor, reviewer, admin');
  return {
    issuer: env.OIDC_ISSUER,
    clientId: env.OIDC_CLIENT_ID,
    clientSecret: env.OIDC_CLIENT_SECRET ?? '',
    providerName: env.OIDC_PROVIDER_NAME || new URL(env.OIDC_ISSUER).host,
    role,
    organizationId: env.OIDC_ORGANIZATION_ID || null,
  };
}

/**
 * The pino log level from the environment (`LOG_LEVEL`, default `info`): the one setting the
 * process-wide logger (src/lib/logger.ts) reads before any configuration is loaded.
 */
export function logLevelOf(env: NodeJS.ProcessEnv = process.env): string {
  return env.LOG_LEVEL ?? 'info';
}

/**
 * Reads the configuration from an environment map.
 * @param env defaults to `process.env`
 * @throws Error when a numeric variable is not a non-negative integer, or SEARCH_PROVIDER is
 *   unknown
 * Long on purpose: one object literal, one line per setting.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env.PORT, 8080, 'PORT');
  const dataDir = path.resolve(REPO_ROOT, env.DATA_DIR ?? '.data');
  const home = env.HOME ?? '/tmp';
  const sharedDataDir = path.resolve(REPO_ROOT, env.SHARED_DATA_DIR || path.join('..', 'shared', 'data'));
  return {
    port,
    publicUrl: (env.PUBLIC_URL ?? `http://127.0.0.1:${port}`).replace(/\/$/, ''),
    databaseUrl: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/catalog_enrichment',
    temporalAddress: env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
    temporalNamespace: env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: env.TEMPORAL_TASK_QUEUE ?? 'catalog-enrichment',
    startLocalTemporal: !env.TEMPORAL_ADDRESS,
    startInstallPackages: bool(env.START_INSTALL_PACKAGES, true),
    dataDir,
    blobStore: blobStoreSettings(env, dataDir),
    temporalCliCache: env.TEMPORAL_CLI_CACHE ?? path.join(env.XDG_CACHE_HOME ?? path.join(home, '.cache'), 'temporal-cli', 'v1.5.1'),
    researchArchives: env.RESEARCH_ARCHIVES
      ? env.RESEARCH_ARCHIVES.split(':')
          .filter(Boolean)
          .map((p) => path.resolve(p))
      : defaultArchives(sharedDataDir),
    sharedDataDir,
    enrichConcurrency: Math.max(1, int(env.ENRICH_CONCURRENCY, 8, 'ENRICH_CONCURRENCY')),
    bootstrapApiKey: env.BOOTSTRAP_API_KEY || null,
    jwtSecret: env.JWT_SECRET || null,
    allowHttpWebhooks: bool(env.ALLOW_HTTP_WEBHOOKS, false),
    oidc: oidcSettings(env),
    llm: env.OPENAI_BASE_URL
      ? {
          baseUrl: env.OPENAI_BASE_URL,
          apiKey: env.OPENAI_API_KEY ?? 'none',
          model: env.OPENAI_MODEL ?? 'gpt-4o-mini',
          timeoutMs: int(env.OPENAI_TIMEOUT_MS, 60_000, 'OPENAI_TIMEOUT_MS'),
          maxRetries: int(env.OPENAI_MAX_RETRIES, 2, 'OPENAI_MAX_RETRIES'),
          models: {
            ...(env.OPENAI_MODEL_CHEAP ? { cheap: env.OPENAI_MODEL_CHEAP } : {}),
            ...(env.OPENAI_MODEL_FAST ? { fast: env.OPENAI_MODEL_FAST } : {}),
            ...(env.OPENAI_MODEL_DEEP ? { deep: env.OPENAI_MODEL_DEEP } : {}),
          },
          reasoning: bool(env.OPENAI_REASONING, false),
        }
      : null,
    googleTaxonomyFile: env.GOOGLE_TAXONOMY_FILE ? path.resolve(env.GOOGLE_TAXONOMY_FILE) : bundledGoogleTaxonomy(),
    search: {
      provider: searchProvider(env.SEARCH_PROVIDER),
      searxngUrl: env.SEARXNG_URL || null,
      braveApiKey: env.BRAVE_API_KEY || null,
      braveApiUrl: env.BRAVE_API_URL || 'https://api.search.brave.com/res/v1/web/search',
      timeoutMs: int(env.SEARCH_TIMEOUT_MS, 10_000, 'SEARCH_TIMEOUT_MS'),
    },
    fetch: {
      timeoutMs: int(env.FETCH_TIMEOUT_MS, 15_000, 'FETCH_TIMEOUT_MS'),
      connectTimeoutMs: int(env.FETCH_CONNECT_TIMEOUT_MS, 5_000, 'FETCH_CONNECT_TIMEOUT_MS'),
      maxBytes: int(env.FETCH_MAX_BYTES, 5 * 1024 * 1024, 'FETCH_MAX_BYTES'),
      maxRedirects: int(env.FETCH_MAX_REDIRECTS, 5, 'FETCH_MAX_REDIRECTS'),
      perHostConcurrency: Math.max(1, int(env.FETCH_PER_HOST_CONCURRENCY, 2, 'FETCH_PER_HOST_CONCURRENCY')),
      userAgent: env.FETCH_USER_AGENT || 'catalog-enrichment-service/0.1 (+product data research)',
      allowPrivate: bool(env.FETCH_ALLOW_PRIVATE, false),
      hostIntervalMs: int(env.FETCH_HOST_INTERVAL_MS, 1000, 'FETCH_HOST_INTERVAL_MS'),
      crawlDelayMaxS: int(env.FETCH_CRAWL_DELAY_MAX_S, 30, 'FETCH_CRAWL_DELAY_MAX_S'),
      maxAgeS: int(env.FETCH_MAX_AGE_S, 2 * 86_400, 'FETCH_MAX_AGE_S'),
      robotsCacheS: Math.min(86_400, int(env.FETCH_ROBOTS_CACHE_S, 86_400, 'FETCH_ROBOTS_CACHE_S')),
      retryAfterMaxS: int(env.FETCH_RETRY_AFTER_MAX_S, 600, 'FETCH_RETRY_AFTER_MAX_S'),
      retryAttempts: Math.max(1, int(env.FETCH_RETRY_ATTEMPTS, 4, 'FETCH_RETRY_ATTEMPTS')),
      itemUrls: bool(env.FETCH_ITEM_URLS, true),
    },
    render: {
      chromiumPath: env.CHROMIUM_PATH || '/usr/bin/chromium',
      concurrency: int(env.RENDER_CONCURRENCY, 1, 'RENDER_CONCURRENCY'),
      pagesPerBrowser: Math.max(1, int(env.RENDER_RECYCLE_PAGES, 20, 'RENDER_RECYCLE_PAGES')),
    },
    logLevel: logLevelOf(env),
    metricsToken: env.METRICS_TOKEN || null,
    workerMetricsPort: env.WORKER_METRICS_PORT ? int(env.WORKER_METRICS_PORT, 0, 'WORKER_METRICS_PORT') : null,
    temporalMetricsAddress: env.TEMPORAL_METRICS_ADDRESS || null,
    pythonSandbox: {
      bwrapPath: env.PYTHON_SANDBOX_BWRAP || '/usr/bin/bwrap',
      pythonPath: env.PYTHON_SANDBOX_PYTHON || '/usr/bin/python3',
      memoryBytes: Math.max(64, int(env.PYTHON_SANDBOX_MEMORY_MB, 512, 'PYTHON_SANDBOX_MEMORY_MB')) * 1024 * 1024,
    },
    gridIndexes: {
      minItems: int(env.GRID_INDEX_MIN_ITEMS, 100_000, 'GRID_INDEX_MIN_ITEMS'),
      maxPerCatalog: int(env.GRID_INDEX_MAX_PER_CATALOG, 8, 'GRID_INDEX_MAX_PER_CATALOG'),
    },
    gridCountEstimateAbove: env.GRID_COUNT_ESTIMATE_ABOVE ? Math.max(1, int(env.GRID_COUNT_ESTIMATE_ABOVE, 0, 'GRID_COUNT_ESTIMATE_ABOVE')) : null,
    limits: {
      requestsPerSecond: int(env.RATE_LIMIT_RPS, 50, 'RATE_LIMIT_RPS'),
      burst: Math.max(1, int(env.RATE_LIMIT_BURST, 200, 'RATE_LIMIT_BURST')),
      authFailuresPerMinute: int(env.AUTH_FAILURES_PER_MINUTE, 20, 'AUTH_FAILURES_PER_MINUTE'),
      concurrentJobs: int(env.MAX_CONCURRENT_JOBS, 20, 'MAX_CONCURRENT_JOBS'),
      monthlyCredits: env.MONTHLY_CREDITS ? int(env.MONTHLY_CREDITS, 0, 'MONTHLY_CREDITS') : null,
    },
  };
}
