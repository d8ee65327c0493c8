/**
 * The typed client of the catalog enrichment service: the types of every route, as
 * `npm run client:generate` writes them from the service's OpenAPI document (`./schema`), and
 * openapi-fetch calling the service with them, so a path, a parameter or a body that the document
 * does not have fails the type check instead of answering 404 or 422 at run time.
 *
 * ```ts
 * const api = createCatalogClient({ baseUrl: 'http://127.0.0.1:8080', token: 'ck_…' });
 * const { data, error } = await api.GET('/api/public/catalogs/{catalog_id}/items', {
 *   params: { path: { catalog_id }, query: { limit: 50 } },
 * });
 * ```
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema';

export type { paths, components, operations } from './schema';

/** The HTTP methods the service's routes use (lower case, as the generated `paths` name them). */
export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';

/** The paths of the document (`/api/…`, with `{name}` parameters) that have method `M`. */
export type PathsWith<M extends HttpMethod> = {
  [P in keyof paths]: paths[P] extends { [K in M]: unknown } ? P : never;
}[keyof paths];

/** An openapi-fetch client bound to the service's `paths` (`GET`, `POST`, … and `request`). */
export type CatalogClient = Client<paths>;

/** How to reach the service. */
export interface CatalogClientOptions {
  /**
   * The service's origin, e.g. `http://127.0.0.1:8080` (the paths carry `/api`). A base URL that ends
   * in `/api` (what the tool server and the benches configure) is accepted too: the `/api` is dropped.
   */
  baseUrl: string;
  /** Bearer credential (an API key `ck_…` or a user token); null or absent = none. */
  token?: string | null;
  /** Sent as `X-Organization-Id` on every call (a call's own `params.header` overrides it); null or absent = the credential's default. */
  organizationId?: string | null;
  /** Other headers sent on every call (e.g. `Accept`). */
  headers?: Record<string, string>;
  /** The fetch to use (default: the global one). */
  fetch?: (input: Request) => Promise<Response>;
}

/**
 * The origin the client's `/api/…` paths are resolved against: `baseUrl` without trailing slashes
 * and without a final `/api` segment.
 */
export function serviceOrigin(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/api$/, '');
}

/**
 * A typed client of the service: every call's path, parameters and body are checked against the
 * generated `paths`; answers come back as openapi-fetch's `{ data, error, response }` (it never
 * throws for an HTTP status, only for a network failure).
 */
export function createCatalogClient(options: CatalogClientOptions): CatalogClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.organizationId) headers['X-Organization-Id'] = options.organizationId;
  return createClient<paths>({ baseUrl: serviceOrigin(options.baseUrl), headers, ...(options.fetch ? { fetch: options.fetch } : {}) });
}
