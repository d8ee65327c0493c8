/**
 * The companion tool server: an `McpServer` of the official SDK with the `catalog_*` (channel and
 * feed tools among them), `execution_*` and `service_*` tools, bound to one API client and configuration.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ApiClient } from './api-client';
import type { McpConfig } from './config';
import { registerCatalogTools } from './tools/catalog';
import { registerChannelTools } from './tools/channels';
import { registerExecutionTools } from './tools/execution';
import { registerServiceTools } from './tools/service';

/** Name and version the server announces at initialization. */
export const SERVER_INFO = { name: 'catalog-enrichment-tools', version: '0.1.0' } as const;

/** How the server introduces itself to the agent: the update pattern of docs/tool-server-design.md "How the local tools behave". */
export const INSTRUCTIONS = [
  'Tools for a catalog enrichment service. Recommended update pattern:',
  '1. execution_catalog_snapshot_pull (full snapshot), 2. transform the JSONL/CSV locally,',
  '3. execution_local_diff_compute, 4. execution_bundle_validate, 5. execution_catalog_stage_dataset (one review activity),',
  '6. a person reviews and applies in the dashboard (review_url). This server never approves or applies changes.',
].join('\n');

/**
 * A new MCP server with every tool registered (one per connection: the HTTP transport creates one
 * per request, stdio one per process).
 * @returns the server, not yet connected to a transport
 */
export function createMcpServer(config: McpConfig): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  const ctx = { api: new ApiClient(config), config };
  registerCatalogTools(server, ctx);
  registerChannelTools(server, ctx);
  registerExecutionTools(server, ctx);
  registerServiceTools(server, ctx);
  return server;
}
