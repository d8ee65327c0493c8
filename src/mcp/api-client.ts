/**
 * The tool server's only way to the service: JSON over its public HTTP API (issue 21 "Shape":
 * "talking to the service only over its public HTTP API"; decisions.md §1 for auth and errors).
 * Every call carries `Authorization: Bearer <token>` and, when known, `X-Organization-Id`.
 * Retries (issue 21, `execution_catalog_snapshot_pull`): 5xx, 408, 429 and network errors are
 * retried with exponential backoff when the caller asks for attempts > 1; anything else fails at once.
 */
import type { McpConfig } from './config';

/** Statuses worth retrying (issue 21: "retries on 5xx/408/429 and network errors"). */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/**
 * A failed API call. `status` 0 = no HTTP answer (network error or timeout). `detail` is the
 * service's error body `detail` (decisions.md §1: a string, or the 422 list), surfaced to the agent.
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
  /** Query parameters; undefined and null values are left out. */
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
 * min(0.4·2^attempt, 2) s with the default base (tool-server.md §2.4 step 3).
 */
export function backoffMs(attempt: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** attempt, 5 * baseMs);
}

/** A client of the service API bound to one base URL, credential and organization. */
export class ApiClient {
  constructor(private readonly config: Pick<McpConfig, 'baseUrl' | 'token' | 'organizationId' | 'retryBaseMs'>) {}

  /** The base URL (ends in `/api`). */
  get baseUrl(): string {
    return this.config.baseUrl;
  }

  /**
   * One JSON call: `path` is relative to the base URL (e.g. `/public/catalogs`).
   * @returns the parsed JSON body (null for 204 or an empty body)
   * @throws ApiError with the status and the service's `detail` once attempts are used up or on a non-retryable status
   */
  async call<T = unknown>(method: string, path: string, options: CallOptions = {}): Promise<T> {
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

  /** One attempt of {@link call}. */
  private async once(method: string, path: string, options: CallOptions): Promise<unknown> {
    const url = new URL(this.config.baseUrl + path);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.config.token) headers.Authorization = `Bearer ${this.config.token}`;
    const org = options.organizationId === undefined ? this.config.organizationId : options.organizationId;
    if (org) headers['X-Organization-Id'] = org;
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
      });
    } catch (err) {
      throw new ApiError(0, err instanceof Error ? err.message : String(err), method, path);
    }
    const text = await res.text().catch((err: unknown) => {
      throw new ApiError(0, err instanceof Error ? err.message : String(err), method, path);
    });
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
