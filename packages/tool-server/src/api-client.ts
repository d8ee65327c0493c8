/**
 * The tool server's only way to the service: JSON over its public HTTP API ("talking to the service only over its public HTTP API"; docs/api-reference.md "Authentication" for auth and errors),
 * through the typed client `@catalog-enrichment/client`: a call names a path of the
 * service's OpenAPI document (`/api/…` with `{name}` parameters) and a method it has, both checked
 * by the type checker, and openapi-fetch sends it.
 * Every call carries `Authorization: Bearer <token>` and, when known, `X-Organization-Id`.
 * Retries (`execution_catalog_snapshot_pull`): 5xx, 408, 429 and network errors are
 * retried with exponential backoff when the caller asks for attempts > 1; anything else fails at once.
 */
import { createCatalogClient, type CatalogClient, type HttpMethod, type PathsWith } from '@catalog-enrichment/client';
import type { McpConfig } from './config';

/** Statuses worth retrying ("retries on 5xx/408/429 and network errors"). */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/**
 * A failed API call. `status` 0 = no HTTP answer (network error or timeout). `detail` is the
 * service's error body `detail` (docs/api-reference.md "Errors": a string, or the 422 list), surfaced to the agent.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
    readonly method: string,
    readonly path: string,
  ) {
    super(`${method} ${path} → ${status === 0 ? 'no answer' : status}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
    this.name = 'ApiError';
  }

  /** Whether trying again may succeed (network error, timeout, 5xx, 408, 429). */
  get retryable(): boolean {
    return this.status === 0 || isRetryableStatus(this.status);
  }
}

/** Options of one call. */
export interface CallOptions {
  /** Values of the path's `{name}` parameters (URL-encoded by the client). */
  path?: Record<string, string | number>;
  /** Query parameters; undefined, null and empty values are left out. */
  query?: Record<string, string | number | boolean | null | undefined>;
  /** JSON body. */
  body?: unknown;
  /** Overrides the configured `X-Organization-Id` for this call. */
  organizationId?: string | null;
  /** Attempts in all (default 1 = no retry); only retryable failures are retried. */
  attempts?: number;
  /** Time limit of one attempt in ms (default 60 s). */
  timeoutMs?: number;
}

/** Sleeps `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The backoff before retry number `attempt` (0-based): min(base·2^attempt, 5·base) ms, i.e.
 * min(0.4·2^attempt, 2) s with the default base (docs/tool-server-design.md "Staging").
 */
export function backoffMs(attempt: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** attempt, 5 * baseMs);
}

/**
 * One call's method (upper case) and path, checked against the document: the path must be one of
 * its paths that has that method (e.g. `'GET', '/api/public/catalogs/{catalog_id}/raw-items'`).
 */
export type Endpoint = { [M in HttpMethod]: [method: Uppercase<M>, path: PathsWith<M>, options?: CallOptions] }[HttpMethod];

/** openapi-fetch's `request` as {@link ApiClient.call} uses it, after {@link Endpoint} checked the method and path. */
type UncheckedRequest = (
  method: string,
  path: string,
  init: {
    params: { path?: Record<string, string | number>; query?: Record<string, string | number | boolean> };
    body?: unknown;
    headers: Record<string, string | null>;
    parseAs: 'text';
    signal: AbortSignal;
  },
) => Promise<{ data?: string; error?: unknown; response: Response }>;

/** `template` with its `{name}` parameters filled in (URL-encoded) and without the leading `/api`: the path as the base URL continues it. */
export function concretePath(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/^\/api(?=\/|$)/, '').replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? encodeURIComponent(String(params[name])) : m));
}

/** A client of the service API bound to one base URL, credential and organization. */
export class ApiClient {
  /** The typed client (openapi-fetch) the calls go through. */
  private readonly http: CatalogClient;

  constructor(private readonly config: Pick<McpConfig, 'baseUrl' | 'token' | 'organizationId' | 'retryBaseMs'>) {
    this.http = createCatalogClient({ baseUrl: config.baseUrl, token: config.token, headers: { Accept: 'application/json' } });
  }

  /** The base URL (ends in `/api`). */
  get baseUrl(): string {
    return this.config.baseUrl;
  }

  /**
   * One JSON call: `path` is a path of the service's OpenAPI document (e.g. `/api/public/catalogs`),
   * its `{name}` parameters given in `options.path`. The service is reached at the configured base
   * URL's origin (the base URL ends in `/api`, which the document's paths carry).
   * @returns the parsed JSON body (null for 204 or an empty body; the text when it is not JSON)
   * @throws ApiError with the status and the service's `detail` once attempts are used up or on a non-retryable status
   */
  async call<T = unknown>(...[method, path, options = {}]: Endpoint): Promise<T> {
    const attempts = Math.max(1, options.attempts ?? 1);
    let last: ApiError | null = null;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await sleep(backoffMs(attempt - 1, this.config.retryBaseMs));
      try {
        return (await this.once(method, path, options)) as T;
      } catch (err) {
        if (!(err instanceof ApiError) || !err.retryable) throw err;
        last = err;
      }
    }
    throw last ?? new ApiError(0, 'no attempt made', method, path);
  }

  /** One attempt of {@link call}; errors name the concrete path relative to the base URL (`/public/catalogs/<id>/schema`). */
  private async once(method: string, template: string, options: CallOptions): Promise<unknown> {
    const path = concretePath(template, options.path);
    const query: Record<string, string | number | boolean> = {};
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined && v !== null && v !== '') query[k] = v;
    const org = options.organizationId === undefined ? this.config.organizationId : options.organizationId;
    const request = this.http.request as unknown as UncheckedRequest;
    let res: Response;
    let text: string;
    try {
      const answer = await request(method.toLowerCase(), template, {
        params: { path: options.path, query },
        body: options.body,
        // null leaves the header out (openapi-fetch's rule for a null header value).
        headers: { 'X-Organization-Id': org || null },
        parseAs: 'text',
        signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
      });
      res = answer.response;
      // openapi-fetch has read the body: the text when the call succeeded, the JSON (or text) of an error.
      text = res.ok ? (answer.data ?? '') : typeof answer.error === 'string' ? answer.error : answer.error === undefined ? '' : JSON.stringify(answer.error);
    } catch (err) {
      throw new ApiError(0, err instanceof Error ? err.message : String(err), method, path);
    }
    let json: unknown = null;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = text;
      }
    }
    if (!res.ok) {
      const detail = json && typeof json === 'object' && 'detail' in json ? (json as { detail: unknown }).detail : json || res.statusText;
      throw new ApiError(res.status, detail, method, path);
    }
    return json;
  }
}
