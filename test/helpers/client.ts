/**
 * The typed client (packages/client) in API tests: bound to an app a test serves on an
 * ephemeral port, so the test's calls are checked against the OpenAPI document as a user's are.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { createCatalogClient, type CatalogClient } from '@catalog-enrichment/client';
import { testApp } from './app';

/**
 * A typed client of `server` (listening, e.g. `testApp().listen(0)`) sending `headers` on every call
 * (an organization's `auth` from createTestOrg, say).
 */
export function typedClient(server: Server, headers: Record<string, string> = {}): CatalogClient {
  return createCatalogClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, headers });
}

/**
 * Serves `app` (default: {@link testApp} on the test database; a Koa app or its `callback()`, as
 * testApiFor gives it) on an ephemeral loopback port; resolves once it listens. Pair with
 * {@link closeServer} in `afterAll`.
 */
export async function listenTestApp(app: Koa | RequestListener = testApp()): Promise<Server> {
  const server = createServer(typeof app === 'function' ? app : app.callback()).listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  return server;
}

/**
 * Stops `server`: drops the idle keep-alive connections the client's fetch holds open (they would
 * keep it open) and resolves when it is closed.
 */
export async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
  server.closeIdleConnections();
  await closed;
}

/** A multipart form's fields as the typed client's body carries them: text, numbers and booleans (sent as text), files and lists of files. */
export type FormFields = Record<string, string | number | boolean | Blob | Blob[] | undefined>;

/**
 * `fields` as a FormData for openapi-fetch's `bodySerializer` (a multipart route's typed body,
 * e.g. `{ body: form, bodySerializer: () => formData(form) }`): each field appended under its name
 * in the object's order, a list once per entry, numbers and booleans as their text, undefined left
 * out; a File keeps its name and type.
 */
export function formData(fields: FormFields): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    for (const entry of Array.isArray(value) ? value : [value]) form.append(name, entry instanceof Blob ? entry : String(entry));
  }
  return form;
}

/** One page of an item list as the tests read it (docs/api-reference.md "Items"). */
export interface ItemListPage {
  items: Array<{ id: string }>;
  total: number;
  next_cursor: string | null;
}

/**
 * Every item id of a list, in order, by following `next_cursor` (docs/large-catalogs.md "Deep
 * pages") with pages of `limit`, each read by `page` (the suite's call of `GET …/items`).
 * @throws Error when the list has not ended after `maxPages` pages (a cursor that loops)
 */
export async function walkItemCursor(
  page: (query: Record<string, string | number>) => Promise<ItemListPage>,
  query: Record<string, string | number>,
  limit: number,
  maxPages = 200,
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < maxPages; n++) {
    const p: ItemListPage = await page({ ...query, limit, ...(cursor ? { cursor } : {}) });
    ids.push(...p.items.map((i) => i.id));
    cursor = p.next_cursor;
    if (!cursor) return ids;
  }
  throw new Error(`the list had not ended after ${maxPages} pages`);
}
