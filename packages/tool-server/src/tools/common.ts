/**
 * What every tool module shares: the context a tool runs with, the result shapes of the MCP
 * `tools/call` answer, and the `organization_id` override (`CATALOG_ORGANIZATION_ID`,
 * "a tool may override per call").
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ApiClient, ApiError } from '../api-client';
import type { McpConfig } from '../config';

/** What a tool handler needs: the API client and the configuration (workspace, pull and stage knobs). */
export interface ToolContext {
  api: ApiClient;
  config: McpConfig;
}

/** The per-call organization override every tool accepts. */
export const organizationId = z.string().min(1).optional().describe('Organization to act in (sent as X-Organization-Id); default CATALOG_ORGANIZATION_ID');

/** A tool's success: the value as JSON text and as structured content. */
export function ok(value: unknown): CallToolResult {
  const structured = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: structured };
}

/** A tool's failure as the agent sees it: `isError` with the message (and the service's `detail` and status for API errors). */
export function fail(err: unknown): CallToolResult {
  const body =
    err instanceof ApiError
      ? { error: err.name, status: err.status, detail: err.detail, message: err.message }
      : { error: err instanceof Error ? err.name : 'Error', message: err instanceof Error ? err.message : String(err), ...extra(err) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body, null, 2) }] };
}

/** Extra fields an error carries for the agent (a validation report). */
function extra(err: unknown): Record<string, unknown> {
  if (err && typeof err === 'object' && 'report' in err) return { report: (err as { report: unknown }).report };
  return {};
}

/** Runs a handler and turns what it returns or throws into a tool result. */
export async function run(fn: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return ok(await fn());
  } catch (err) {
    return fail(err);
  }
}
