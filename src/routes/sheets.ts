import type { ResolvedAppDeps } from '../deps';
import { catalogIdParams } from '../schemas/catalogs';
import { exportQuery } from '../schemas/sheets';
import { exportCatalog } from '../services/inference/export';
import { defineRoute, RouteDef } from './registry';

/**
 * Spreadsheet routes of a catalog (issue 20): the whole catalog streamed out as CSV or XLSX.
 * The body is a stream the export service fills; the route only sets the headers.
 */
export function sheetRoutes(deps: ResolvedAppDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/public/catalogs/:catalog_id/items/export',
      tags: ['items'],
      summary: 'Export every item of a catalog as CSV or XLSX (streamed; products before their variants; arrays and objects as JSON)',
      params: catalogIdParams,
      query: exportQuery,
      handler: async ({ scope, params, query, ctx }) => {
        const e = await exportCatalog(deps.knex, scope, params.catalog_id, query.format);
        ctx.status = 200;
        ctx.type = e.contentType;
        ctx.set('Content-Disposition', `attachment; filename="${e.fileName}"`);
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.body = e.body;
        return undefined;
      },
    }),
  ];
}
