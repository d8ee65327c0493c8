/**
 * The custom search attributes of this service's workflows (docs/workflows.md "Temporal: workflows, ids, search attributes"): operators
 * filter the Temporal Web UI by organization, catalog and kind of job.
 */
import type { Connection } from '@temporalio/client';
import { isGrpcServiceError } from '@temporalio/client';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { CATALOG_ID, JOB_KIND, ORGANIZATION_ID } from '../src/contracts/workflows';

/** Every custom search attribute; also passed to test dev servers (`server.searchAttributes`). */
export const SEARCH_ATTRIBUTES = [ORGANIZATION_ID, CATALOG_ID, JOB_KIND];

/** gRPC status ALREADY_EXISTS (another process registered the attribute first). */
const GRPC_ALREADY_EXISTS = 6;

/**
 * Registers the custom search attributes in a namespace when missing. Idempotent and safe to
 * run concurrently (an "already exists" answer counts as success).
 * @returns the names that this call added (empty when all existed)
 * @throws the gRPC error when the server is unreachable or refuses the registration
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set([...Object.keys(existing.customAttributes ?? {}), ...Object.keys(existing.systemAttributes ?? {})]);
  const missing = SEARCH_ATTRIBUTES.filter((key) => !known.has(key.name));
  if (missing.length === 0) return [];
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((key) => [key.name, encodeSearchAttributeIndexedValueType(key.type)!])),
    });
  } catch (err) {
    if (!(isGrpcServiceError(err) && err.code === GRPC_ALREADY_EXISTS)) throw err;
  }
  return missing.map((key) => key.name);
}
