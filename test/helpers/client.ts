/**
 * The typed client (packages/client, issue 30 §1) in API tests: bound to an app a test serves on an
 * ephemeral port, so the test's calls are checked against the OpenAPI document as a user's are.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCatalogClient, type CatalogClient } from '@catalog-enrichment/client';

/**
 * A typed client of `server` (listening, e.g. `testApp().listen(0)`) sending `headers` on every call
 * (an organization's `auth` from createTestOrg, say).
 */
export function typedClient(server: Server, headers: Record<string, string> = {}): CatalogClient {
  return createCatalogClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, headers });
}
