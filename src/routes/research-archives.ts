import type { ResolvedAppDeps } from '../deps';
import { ValidationError } from '../lib/errors';
import { readFileForm } from '../middleware/file-form';
import { presentResearchArchive } from '../presenters/research-archives';
import { messageResponse } from '../schemas/catalogs';
import { researchArchiveListResponse, researchArchiveMultipart, researchArchiveParams, researchArchiveResponse } from '../schemas/research-archives';
import { createResearchArchive, deleteResearchArchive, listResearchArchives, loadResearchArchive } from '../services/research-archives/archives';
import { createBlobStore } from '../lib/blob-stores';
import { defineRoute, RouteDef } from './registry';

/** Largest archive upload (bytes): 1 TiB, i.e. no practical limit; the file streams to disk. */
const MAX_ARCHIVE_BYTES = 1024 ** 4;

/**
 * Research archive routes (docs/research.md): upload a WARC/WACZ file (indexed by
 * a Temporal workflow into PostgreSQL), list, read status and progress, delete.
 */
export function researchArchiveRoutes(deps: ResolvedAppDeps): RouteDef[] {
  const tags = ['research-archives'];
  const archiveDeps = { knex: deps.knex, jobRunner: deps.jobRunner, blobs: createBlobStore(deps.config.blobStore) };
  return [
    defineRoute({
      method: 'post',
      path: '/public/research-archives',
      tags,
      summary: "Upload a web archive (.warc, .warc.gz, .wacz) that the organization's enrichment jobs research; indexed by a workflow",
      multipart: researchArchiveMultipart,
      response: researchArchiveResponse,
      status: 202,
      handler: async ({ scope, ctx }) => {
        if (!ctx.is('multipart/form-data')) throw ValidationError.at(['body', 'file'], 'Send multipart/form-data with one `file`', 'missing');
        const form = await readFileForm(ctx, deps.config.dataDir, 'file', [], MAX_ARCHIVE_BYTES);
        try {
          const archive = await createResearchArchive(archiveDeps, scope, form.file);
          ctx.status = 202;
          return presentResearchArchive(archive);
        } finally {
          await form.cleanup();
        }
      },
    }),
    defineRoute({
      method: 'get',
      path: '/public/research-archives',
      tags,
      summary: "The organization's web archives and the configured ones, newest first, with status and progress",
      response: researchArchiveListResponse,
      handler: async ({ scope }) => ({ archives: (await listResearchArchives(deps.knex, scope)).map(presentResearchArchive) }),
    }),
    defineRoute({
      method: 'get',
      path: '/public/research-archives/:archive_id',
      tags,
      summary: 'Status (indexing, ready, failed) and progress of one web archive',
      params: researchArchiveParams,
      response: researchArchiveResponse,
      handler: async ({ scope, params }) => presentResearchArchive(await loadResearchArchive(deps.knex, scope, params.archive_id)),
    }),
    defineRoute({
      method: 'delete',
      path: '/public/research-archives/:archive_id',
      tags,
      summary: 'Delete a web archive: its pages leave the research index and its files are removed',
      params: researchArchiveParams,
      response: messageResponse,
      handler: async ({ scope, params }) => {
        await deleteResearchArchive(archiveDeps, scope, params.archive_id);
        return { message: `Research archive ${params.archive_id} deleted` };
      },
    }),
  ];
}
