/**
 * The `service_*` tools (issue 21 "Tools"; tool-server.md §2.5 and §2.6): map rows to a catalog's
 * schema through `/public/enrich`, and image processing runs on the service's media hosting.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { DEFAULT_MAPPING_PROMPT, MAPPING_RULES, outputSchemaOf } from '../map-schema';
import { organizationId, run, seg, ToolContext } from './common';

/** Registers `service_map_to_catalog_schema` and the image tools on `server`. */
export function registerServiceTools(server: McpServer, ctx: ToolContext): void {
  const { api } = ctx;
  server.registerTool(
    'service_map_to_catalog_schema',
    {
      description: "Map source rows into a catalog's schema through the enrichment service (input data only, no web search); results pass through.",
      inputSchema: {
        catalog_id: z.string().min(1),
        items: z.array(z.record(z.string(), z.unknown())).min(1).max(1000).describe('Source rows to map (at most 1000 inline)'),
        prompt: z.string().max(10000).optional(),
        speed: z.enum(['fast', 'medium', 'slow']).default('medium'),
        async_mode: z.boolean().default(false).describe('Return a job_id at once; poll GET /public/enrich/{job_id}'),
        organization_id: organizationId,
      },
    },
    (a) =>
      run(async () => {
        const org = { organizationId: a.organization_id };
        const schema = await api.call<{ schema_definition?: { properties?: Record<string, Record<string, unknown>>; required?: string[] } }>(
          'GET',
          `/public/catalogs/${seg(a.catalog_id)}/schema`,
          org,
        );
        return api.call('POST', '/public/enrich', {
          ...org,
          timeoutMs: 600_000,
          body: {
            items: a.items,
            output_schema: outputSchemaOf(schema.schema_definition ?? {}),
            prompt: `${a.prompt ?? DEFAULT_MAPPING_PROMPT}\n\n${MAPPING_RULES}`,
            speed: a.speed,
            web_search: false,
            predict_taxonomy: false,
            validate_semantics: true,
            staged_status: 'draft',
            include_service_usage: true,
            catalog_id: a.catalog_id,
            ...(a.async_mode ? { async_mode: true } : {}),
          },
        });
      }),
  );
}
