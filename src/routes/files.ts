import fs from 'node:fs';
import type { AppDeps } from '../deps';
import { Type } from '@sinclair/typebox';
import { enrichmentStorage, readArtifact, readMedia } from '../services/enrichment/artifacts';
import { defineRoute, RouteDef } from './registry';

const artifactParams = Type.Object({ sha256: Type.String({ description: 'SHA-256 (hex) of the stored bytes' }) });

/**
 * `GET /api/public/artifacts/{sha256}` (`capture_source_artifacts`): the exact bytes of a source
 * an enrichment job of the organization consulted, with its content type. Authenticated and
 * org-scoped (404 for artifacts the organization never captured).
 */
export function artifactRoutes(deps: AppDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/public/artifacts/:sha256',
      tags: ['enrichment'],
      summary: 'A captured source artifact (exact bytes as fetched)',
      params: artifactParams,
      handler: async ({ scope, params, ctx }) => {
        const a = await readArtifact(deps.knex, enrichmentStorage(deps.config), scope, params.sha256);
        ctx.status = 200;
        ctx.type = a.content_type;
        ctx.set('X-Source-Url', encodeURI(a.url));
        ctx.set('X-Fetched-At', new Date(a.fetched_at).toISOString());
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.set('Content-Security-Policy', 'sandbox');
        ctx.body = fs.createReadStream(a.file);
        return undefined;
      },
    }),
  ];
}

/**
 * `GET /api/public/media/{sha256}.{ext}` (`host_media`): hosted media, served WITHOUT
 * authentication so hosted URLs can be embedded; content-addressed, so a URL cannot be guessed
 * without the content. Mounted outside the authenticated `/api` router (hidden from OpenAPI,
 * whose `/api` paths are all authenticated).
 */
export function publicMediaRoutes(deps: AppDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/public/media/:file',
      tags: ['enrichment'],
      summary: 'Hosted media',
      public: true,
      hidden: true,
      handler: async ({ ctx }) => {
        const m = await readMedia(deps.knex, enrichmentStorage(deps.config), String(ctx.params.file));
        ctx.status = 200;
        ctx.type = m.content_type;
        ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.set('Content-Security-Policy', 'sandbox');
        ctx.body = fs.createReadStream(m.file);
        return undefined;
      },
    }),
  ];
}
