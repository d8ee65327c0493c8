/**
 * Configuration of the companion tool server (docs/mcp.md "Configuration"; docs/tool-server-design.md "How the local tools behave" for the pull and staging knobs). The tool
 * server is a separate program that talks to the service only over HTTP, so it reads its own
 * environment (prefix `CATALOG_`), never the service's `src/config.ts`.
 */
import os from 'node:os';
import path from 'node:path';

/** Everything the tool server reads from its environment, parsed once. */
export interface McpConfig {
  /** Base URL of the service API, ending in `/api` without a slash (env `CATALOG_BASE_URL`, default `http://127.0.0.1:8080/api`). */
  baseUrl: string;
  /** Bearer credential: `CATALOG_API_KEY`, else `CATALOG_ACCESS_TOKEN`, else the token `npm run mcp -- login` stored; null = none. */
  token: string | null;
  /** Sent as `X-Organization-Id` unless a tool call overrides it (env `CATALOG_ORGANIZATION_ID`); null = the credential's default. */
  organizationId: string | null;
  /** Raw-items pages in flight at once (env `CATALOG_MCP_PULL_MAX_CONCURRENCY`, default 8; docs/tool-server-design.md "Pull"). */
  pullMaxConcurrency: number;
  /** Per-page timeout of a pull in ms (env `CATALOG_MCP_PULL_PAGE_TIMEOUT_SECONDS`, default 25 s, minimum 5 s; docs/tool-server-design.md "Pull"). */
  pullPageTimeoutMs: number;
  /** Staged changes per append call (env `CATALOG_MCP_STAGE_BATCH_SIZE`, default 2000, ≤ 0 resets; docs/tool-server-design.md "Staging"). */
  stageBatchSize: number;
  /** Attempts per append / finalize call (env `CATALOG_MCP_STAGE_RETRIES`, default 3, ≤ 0 resets; docs/tool-server-design.md "Staging"). */
  stageRetries: number;
  /** Root of the workspace guard: every file path of a tool resolves inside it (env `CATALOG_MCP_WORKSPACE`, alias `CATALOG_MCP_WORKSPACE_ROOT`, default the cwd; docs/tool-server-design.md "How the local tools behave"). */
  workspace: string;
  /** Where the login helper stores the user token (env `CATALOG_MCP_CREDENTIALS_FILE`, default `~/.config/catalog-mcp/credentials.json`). */
  credentialsFile: string;
  /** Base delay of the retry backoff in ms (docs/tool-server-design.md "Staging": min(0.4·2^attempt, 2) s); tests shorten it with `CATALOG_MCP_RETRY_BASE_MS`. */
  retryBaseMs: number;
}

/** The default base URL: the local service's `/api` (docs/api-reference.md "URLs": the base URL ends in `/api`; service PORT default 8080). */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080/api';

/** A positive integer from the environment, or `fallback` when absent, unparseable or ≤ 0 (docs/tool-server-design.md "Staging": "≤0 resets to the default"). */
function positive(raw: string | undefined, fallback: number): number {
  const n = raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/**
 * Reads the tool server's configuration from `env`. `storedToken`: the token the login helper
 * saved, used when neither `CATALOG_API_KEY` nor `CATALOG_ACCESS_TOKEN` is set.
 * @returns the parsed configuration (never throws: bad numbers fall back to their defaults)
 */
export function loadMcpConfig(env: NodeJS.ProcessEnv, cwd: string, storedToken: string | null = null): McpConfig {
  const token = env.CATALOG_API_KEY?.trim() || env.CATALOG_ACCESS_TOKEN?.trim() || storedToken || null;
  const workspace = env.CATALOG_MCP_WORKSPACE?.trim() || env.CATALOG_MCP_WORKSPACE_ROOT?.trim() || cwd;
  return {
    baseUrl: (env.CATALOG_BASE_URL?.trim() || DEFAULT_BASE_URL).replace(/\/+$/, ''),
    token,
    organizationId: env.CATALOG_ORGANIZATION_ID?.trim() || null,
    pullMaxConcurrency: positive(env.CATALOG_MCP_PULL_MAX_CONCURRENCY, 8),
    pullPageTimeoutMs: Math.max(5, positive(env.CATALOG_MCP_PULL_PAGE_TIMEOUT_SECONDS, 25)) * 1000,
    stageBatchSize: positive(env.CATALOG_MCP_STAGE_BATCH_SIZE, 2000),
    stageRetries: positive(env.CATALOG_MCP_STAGE_RETRIES, 3),
    workspace: path.resolve(cwd, workspace.replace(/^~(?=$|\/)/, os.homedir())),
    credentialsFile: env.CATALOG_MCP_CREDENTIALS_FILE?.trim() || path.join(os.homedir(), '.config', 'catalog-mcp', 'credentials.json'),
    retryBaseMs: positive(env.CATALOG_MCP_RETRY_BASE_MS, 400),
  };
}
