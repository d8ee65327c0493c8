import { Type } from '@sinclair/typebox';

/** JSON Schemas of the research archive routes (docs/research.md). */

/** Multipart form of `POST /public/research-archives` (documentation). */
export const researchArchiveMultipart = Type.Object({
  file: Type.String({
    format: 'binary',
    description:
      'One web archive: .warc or .warc.gz (WARC ISO 28500 1.0/1.1) or .wacz (WACZ 1.x, datapackage.json hashes verified); any size, streamed to disk',
  }),
});

/** `{archive_id}` path parameter. */
export const researchArchiveParams = Type.Object({ archive_id: Type.String() });

/** One research archive as the API shows it. */
export const researchArchiveResponse = Type.Object({
  id: Type.String(),
  name: Type.String({ description: 'The uploaded (or configured) file name' }),
  format: Type.String({ enum: ['warc', 'warc.gz', 'wacz'] }),
  status: Type.String({ enum: ['indexing', 'ready', 'failed'] }),
  configured: Type.Boolean({ description: 'true for the archives of RESEARCH_ARCHIVES, researched by every organization' }),
  size_bytes: Type.Integer(),
  content_sha256: Type.String(),
  progress: Type.Object({
    records_read: Type.Integer({ description: 'WARC records read so far' }),
    pages_indexed: Type.Integer({ description: 'HTML/PDF response records indexed' }),
    skipped: Type.Record(Type.String(), Type.Integer(), {
      description:
        'Records not indexed, by reason: not_a_response, revisit, no_target_uri, http_status_not_2xx, unsupported_type, too_large, unreadable_document',
    }),
  }),
  error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  completed_at: Type.Union([Type.String(), Type.Null()]),
});

/** `GET /public/research-archives`. */
export const researchArchiveListResponse = Type.Object({ archives: Type.Array(researchArchiveResponse) });
