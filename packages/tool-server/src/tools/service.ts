/**
 * The `service_*` tools (docs/tool-server-design.md "Map to catalog schema" and docs/tool-server-design.md "Image tools"): map rows to a catalog's
 * schema through `/public/enrich`, and image processing runs on the service's media hosting.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { DEFAULT_MAPPING_PROMPT, MAPPING_RULES, outputSchemaOf } from '../map-schema';
import { organizationId, run, ToolContext } from './common';

/** Tools of an image run (docs/tool-server-design.md "Image tools", plus the service's `process`). */
const IMAGE_TOOLS = ['generate', 'edit', 'inpaint', 'bg_remove', 'relight', 'upscale', 'process'] as const;

/** Registers `service_map_to_catalog_schema` and the image tools on `server`. */
export function registerServiceTools(server: McpServer, ctx: ToolContext): void {
  const { api } = ctx;
  registerImageTools(server, ctx);
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
          '/api/public/catalogs/{catalog_id}/schema',
          { path: { catalog_id: a.catalog_id }, ...org },
        );
        return api.call('POST', '/api/public/enrich', {
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

/**
 * `service_image_run` / `_status` / `_list` over `POST/GET /public/image-runs` (docs/tool-server-design.md "Image tools":
 * body `{tool, num_options}` plus whichever optional fields are non-empty).
 */
function registerImageTools(server: McpServer, { api }: ToolContext): void {
  server.registerTool(
    'service_image_run',
    {
      description: 'Run an image tool on hosted media (upscale, process: resize/square/format); returns the run with result URLs.',
      inputSchema: {
        tool: z.enum(IMAGE_TOOLS),
        image_url: z.string().optional().describe('Hosted media URL of the organization (…/api/public/media/{sha256}.{ext}); needed by all but generate'),
        mask_url: z.string().optional().describe('Hosted mask (inpaint)'),
        prompt: z.string().optional().describe('Needed by generate, edit, inpaint'),
        prompt_image_urls: z.array(z.string()).optional(),
        provider: z.string().optional(),
        quality: z.enum(['high', 'low']).optional(),
        size: z
          .string()
          .regex(/^[1-9][0-9]{0,4}x[1-9][0-9]{0,4}$/)
          .optional()
          .describe('WxH box for upscale'),
        num_options: z.number().int().min(1).max(4).default(1),
        catalog_id: z.string().optional(),
        item_id: z.string().optional(),
        processing: z
          .object({
            make_square: z.boolean().optional(),
            background_color: z.string().optional(),
            min_side_px: z.number().int().min(1).max(10000).optional(),
            max_side_px: z.number().int().min(1).max(10000).optional(),
            output_format: z.enum(['jpeg', 'png', 'webp', 'avif']).optional(),
            quality: z.number().int().min(1).max(100).optional(),
          })
          .optional()
          .describe('Options of the process tool'),
        organization_id: organizationId,
      },
    },
    ({ organization_id, ...a }) => {
      const body: Record<string, unknown> = { tool: a.tool, num_options: a.num_options };
      for (const [k, v] of Object.entries(a)) if (v !== undefined && v !== '' && !(Array.isArray(v) && !v.length)) body[k] = v;
      return run(() => api.call('POST', '/api/public/image-runs', { body, organizationId: organization_id, timeoutMs: 120_000 }));
    },
  );
  server.registerTool(
    'service_image_status',
    {
      description: 'Get an image run: status (processing, completed, failed), result URLs or error.',
      inputSchema: { run_id: z.string().min(1), organization_id: organizationId },
    },
    (a) => run(() => api.call('GET', '/api/public/image-runs/{run_id}', { path: { run_id: a.run_id }, organizationId: a.organization_id })),
  );
  server.registerTool(
    'service_image_list',
    {
      description: "List the organization's image runs, newest first, filtered by status, tool, catalog or item.",
      inputSchema: {
        status: z.enum(['pending', 'processing', 'completed', 'failed']).optional(),
        tool: z.enum(IMAGE_TOOLS).optional(),
        catalog_id: z.string().optional(),
        item_id: z.string().optional(),
        limit: z.number().int().min(1).max(100).default(20),
        offset: z.number().int().min(0).default(0),
        organization_id: organizationId,
      },
    },
    ({ organization_id, ...q }) => run(() => api.call('GET', '/api/public/image-runs', { query: q, organizationId: organization_id })),
  );
}
