import type { AppDeps } from '../deps';
import { Type } from '@sinclair/typebox';
import { enrichmentStorage, readArtifact, readMedia } from '../services/enrichment/rows/artifacts';
import { evidenceWacz, readCapture, type Capture } from '../services/enrichment/rows/evidence-wacz';
import type { Context } from 'koa';
import { defineRoute, RouteDef } from './registry';

const artifactParams = Type.Object({ sha256: Type.String({ description: 'SHA-256 (hex) of the stored bytes' }) });
const jobParams = Type.Object({ job_id: Type.String({ description: 'Enrichment job id' }) });
const captureParams = Type.Object({
  job_id: Type.String({ description: 'Enrichment job id' }),
  record_id: Type.String({ description: 'UUID of the WARC record (`review_info.source_captures` names it as `<job_id>/<record_id>`)' }),
});

/**
 * `GET /api/public/artifacts/{sha256}` (`capture_source_artifacts`): the exact bytes of a source
 * an enrichment job of the organization consulted, with its content type. Authenticated and
 * org-scoped (404 for artifacts the organization never captured).
 */
export function artifactRoutes(deps: AppDeps): RouteDef[] {
  // One blob store client per router, not per request.
  const storage = enrichmentStorage(deps.config);
  return [
    defineRoute({
      method: 'get',
      path: '/public/artifacts/:sha256',
      tags: ['enrichment'],
      summary: 'A captured source artifact (exact bytes as fetched)',
      params: artifactParams,
      handler: async ({ scope, params, ctx }) => {
        const a = await readArtifact(deps.knex, storage, scope, params.sha256);
        ctx.status = 200;
        ctx.type = a.content_type;
        ctx.set('X-Source-Url', encodeURI(a.url));
        ctx.set('X-Fetched-At', new Date(a.fetched_at).toISOString());
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.set('Content-Security-Policy', 'sandbox');
        ctx.body = a.body;
        return undefined;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/public/enrich/:job_id/evidence.wacz',
      tags: ['enrichment'],
      summary: "The job's evidence as a WACZ (WARC 1.1 records of every consulted page, CDXJ index, pages, datapackage with SHA-256 hashes)",
      params: jobParams,
      handler: async ({ scope, params, ctx }) => {
        const wacz = await evidenceWacz(deps.knex, storage, scope, params.job_id);
        ctx.status = 200;
        ctx.type = 'application/wacz';
        ctx.set('Content-Disposition', `attachment; filename="evidence-${params.job_id}.wacz"`);
        ctx.body = wacz;
        return undefined;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/public/enrich/:job_id/captures/:record_id',
      tags: ['enrichment'],
      summary: 'A consulted page as it was seen, from its WARC record (sandboxed: no scripts run)',
      params: captureParams,
      handler: async ({ scope, params, ctx }) => {
        sendCapture(ctx, await readCapture(deps.knex, storage, scope, params.job_id, params.record_id));
        return undefined;
      },
    }),
  ];
}

/**
 * Answers with a captured page as it was seen: its payload and content type, its original URL
 * and capture time in headers, under `Content-Security-Policy: sandbox` (no scripts, no
 * same-origin access) and `nosniff`, so a captured page can never act on the service's origin.
 */
export function sendCapture(ctx: Context, capture: Capture): void {
  ctx.status = 200;
  ctx.type = capture.content_type;
  ctx.set('Content-Security-Policy', 'sandbox');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Source-Url', encodeURI(capture.url));
  ctx.set('X-Captured-At', capture.date);
  ctx.set('X-Source-Status', String(capture.status));
  ctx.body = capture.body;
}

/**
 * `GET /api/public/media/{sha256}.{ext}` (`host_media`): hosted media, served WITHOUT
 * authentication so hosted URLs can be embedded; content-addressed, so a URL cannot be guessed
 * without the content. Mounted outside the authenticated `/api` router (hidden from OpenAPI,
 * whose `/api` paths are all authenticated).
 */
export function publicMediaRoutes(deps: AppDeps): RouteDef[] {
  // One blob store client per router, not per request.
  const storage = enrichmentStorage(deps.config);
  return [
    defineRoute({
      method: 'get',
      path: '/api/public/media/:file',
      tags: ['enrichment'],
      summary: 'Hosted media',
      public: true,
      hidden: true,
      handler: async ({ ctx }) => {
        const m = await readMedia(deps.knex, storage, String(ctx.params.file));
        ctx.status = 200;
        ctx.type = m.content_type;
        ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.set('Content-Security-Policy', 'sandbox');
        ctx.body = m.body;
        return undefined;
      },
    }),
  ];
}
