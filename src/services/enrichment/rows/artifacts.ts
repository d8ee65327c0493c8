import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { Config } from '../../../config';
import type { EnrichmentResult, OutputField } from '../../../enrichment/types';
import type { Fetcher, FetchedPage } from '../../../enrichment/research/types';
import { NotFoundError } from '../../../lib/errors';
import { HostedMedia } from '../../../models/hosted-media';
import { SourceArtifact } from '../../../models/source-artifact';
import { processesField, processImage, type ImageProcessingOptions } from './image-processing';
import type { Scope } from '../../access/scope';
import { own } from '../../../lib/objects';
import { bufferOf, contentKey, type BlobStore } from '../../../lib/blob-store';
import { createBlobStore } from '../../../lib/blob-stores';

/**
 * Durable copies of what a job consulted and returned (docs/api-enrichment.md "Enrichment jobs" `capture_source_artifacts`,
 * `host_media`, `strict_hosted_media`). Files are content-addressed by SHA-256 under the
 * keys `artifacts/…` and `media/…` of the blob store (src/lib/blob-store.ts); rows in `source_artifacts` /
 * `hosted_media` tie them to organizations (and jobs), so serving is org-scoped where it must be.
 * Pages are stored exactly as fetched (bytes, content type, fetch time); screenshots of web
 * pages are not rendered — the HTML itself is the artifact.
 */

/**
 * Where artifacts and media are stored and served from: the blob store (`config.blobStore`) and
 * the public base URL of hosted links (`config.publicUrl`). Carried by the app's and the worker's
 * dependencies (both must name the same store, or the API cannot serve what the worker stored).
 */
export interface EnrichmentStorage {
  blobs: BlobStore;
  publicUrl: string;
}

/**
 * The storage of a configuration.
 * @throws Error when the configured blob store cannot be built (src/lib/blob-stores.ts)
 */
export function enrichmentStorage(config: Pick<Config, 'blobStore' | 'publicUrl'>): EnrichmentStorage {
  return { blobs: createBlobStore(config.blobStore), publicUrl: config.publicUrl };
}

/** The public URL prefix of hosted media: `<publicUrl>/api/public/media/`. */
function mediaPrefix(storage: EnrichmentStorage): string {
  return `${storage.publicUrl}/api/public/media/`;
}

/** Writes a content-addressed blob once (the same key always holds the same bytes). */
async function writeOnce(storage: EnrichmentStorage, key: string, body: Buffer | (() => Readable)): Promise<void> {
  if (await storage.blobs.head(key)) return;
  await storage.blobs.put(key, Buffer.isBuffer(body) ? body : body());
}

/** A stored source: what `source_artifacts` records for one fetched page. */
export interface ArtifactRecord {
  sha256: string;
  url: string;
  final_url: string;
  http_status: number;
  content_type: string;
  byte_size: number;
  fetched_at: string;
}

/** Stores the exact bytes of every fetched page; returns one record per page (duplicates kept once). */
export async function storeArtifacts(storage: EnrichmentStorage, pages: FetchedPage[]): Promise<ArtifactRecord[]> {
  const out = new Map<string, ArtifactRecord>();
  for (const p of pages) {
    const body = Buffer.isBuffer(p.body) ? p.body : Buffer.from(p.body ?? '');
    const sha256 = createHash('sha256').update(body).digest('hex');
    await writeOnce(storage, contentKey('artifacts', sha256), body);
    out.set(`${p.url}\n${sha256}`, {
      sha256,
      url: p.url,
      final_url: p.final_url,
      http_status: p.status,
      content_type: p.content_type || 'application/octet-stream',
      byte_size: body.length,
      fetched_at: p.fetched_at || new Date().toISOString(),
    });
  }
  return [...out.values()];
}

/** Records artifacts of one row (inside the row-result transaction; idempotent). */
export async function recordArtifacts(
  trx: Knex.Transaction,
  job: { id: string; organization_id: string },
  rowIndex: number,
  records: ArtifactRecord[],
): Promise<void> {
  if (records.length === 0) return;
  await trx('source_artifacts')
    .insert(records.map((r) => ({ organization_id: job.organization_id, job_id: job.id, row_index: rowIndex, ...r })))
    .onConflict(['job_id', 'row_index', 'url', 'sha256'])
    .ignore();
}

/** The artifact list a result carries: where each consulted source's copy is served. */
export function artifactLinks(storage: EnrichmentStorage, records: ArtifactRecord[]): Array<Record<string, unknown>> {
  return records.map((r) => ({
    url: r.url,
    final_url: r.final_url,
    sha256: r.sha256,
    content_type: r.content_type,
    fetched_at: r.fetched_at,
    artifact_url: `${storage.publicUrl}/api/public/artifacts/${r.sha256}`,
  }));
}

/**
 * `GET /api/public/artifacts/{sha256}`: the stored bytes with their content type, for artifacts
 * one of the organization's jobs captured.
 * @throws NotFoundError (404) when the organization captured no such artifact
 */
export async function readArtifact(
  knex: Knex,
  storage: EnrichmentStorage,
  scope: Scope,
  sha256: string,
): Promise<{ body: Readable; content_type: string; fetched_at: Date; url: string }> {
  const sha = sha256.toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(sha)) throw new NotFoundError('Artifact not found');
  const row = await SourceArtifact.query(knex)
    .where({ organization_id: scope.organizationId, sha256: sha })
    .orderBy('id')
    .first()
    .select('content_type', 'fetched_at', 'url');
  const body = row ? await storage.blobs.get(contentKey('artifacts', sha)) : null;
  if (!row || !body) throw new NotFoundError('Artifact not found');
  return { body, content_type: row.content_type, fetched_at: row.fetched_at, url: row.url };
}

const MEDIA_TYPES: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/jpg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/svg+xml': 'svg',
  'image/bmp': 'bmp',
  'image/tiff': 'tiff',
  'application/pdf': 'pdf',
};
/** Knowledge-base documents may also be plain text formats (never HTML: it would run on our origin). */
const DOCUMENT_TYPES: Record<string, string> = { 'text/plain': 'txt', 'text/markdown': 'md', 'text/csv': 'csv', 'application/json': 'json' };
const EXT_TYPES: Record<string, string> = Object.fromEntries(Object.entries({ ...MEDIA_TYPES, ...DOCUMENT_TYPES }).map(([t, e]) => [e, t]));

/** Upper bound of one hosted file. */
export const MEDIA_MAX_BYTES = 25 * 1024 * 1024;

/**
 * Stores media bytes for an organization and returns the public URL
 * `${PUBLIC_URL}/api/public/media/{sha256}.{ext}`, or null when the content type is not an
 * image or PDF (only media is hosted) — or, with `documents`, not one of the plain text
 * document types either (knowledge-base uploads).
 */
export async function hostBytes(
  knex: Knex | Knex.Transaction,
  storage: EnrichmentStorage,
  organizationId: string,
  bytes: Buffer,
  contentType: string,
  sourceUrl: string,
  documents = false,
): Promise<string | null> {
  const type = contentType.split(';')[0].trim().toLowerCase();
  const ext = own(MEDIA_TYPES, type) ?? (documents ? own(DOCUMENT_TYPES, type) : undefined);
  if (!ext || bytes.length === 0 || bytes.length > MEDIA_MAX_BYTES) return null;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  await writeOnce(storage, contentKey('media', sha256, `.${ext}`), bytes);
  await HostedMedia.query(knex)
    .insert({ organization_id: organizationId, sha256, ext, content_type: type, source_url: sourceUrl, byte_size: bytes.length })
    .onConflict(['organization_id', 'sha256'])
    .ignore();
  return `${mediaPrefix(storage)}${sha256}.${ext}`;
}

/**
 * Hosts an uploaded file (knowledge-base document) without reading it whole into memory: hashes
 * it as a stream, then copies it into media storage.
 * @returns the hosted URL, or null for a content type that is not hostable
 */
export async function hostFile(
  knex: Knex | Knex.Transaction,
  storage: EnrichmentStorage,
  organizationId: string,
  file: string,
  contentType: string,
  sourceName: string,
): Promise<string | null> {
  const type = contentType.split(';')[0].trim().toLowerCase();
  const ext = own(MEDIA_TYPES, type) ?? own(DOCUMENT_TYPES, type);
  if (!ext) return null;
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of fs.createReadStream(file)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  const sha256 = hash.digest('hex');
  await writeOnce(storage, contentKey('media', sha256, `.${ext}`), () => fs.createReadStream(file));
  await HostedMedia.query(knex)
    .insert({ organization_id: organizationId, sha256, ext, content_type: type, source_url: `upload:${sourceName}`, byte_size: size })
    .onConflict(['organization_id', 'sha256'])
    .ignore();
  return `${mediaPrefix(storage)}${sha256}.${ext}`;
}

/** True for output fields whose values are media URLs (`array_element_type: image_url`, or an image/document semantic type). */
export function isMediaField(f: OutputField): boolean {
  return f.array_element_type === 'image_url' || /^(image|image_url|document|document_url|pdf)$/i.test(f.semantic_type ?? '');
}

/**
 * Copies the media URLs of a result's media fields into service storage through `fetcher` and
 * rewrites them to hosted URLs (`host_media`). A URL that cannot be hosted (fetch error, status
 * ≠ 200, not an image/PDF) stays as it was, with a field issue — unless `strict`, in which
 * case the whole field is cleared (value, sources, explanation) so no unhosted media leaves the
 * service (`strict_hosted_media`). Without a fetcher nothing can be hosted. With `processing`
 * (`image_processing`, src/services/enrichment/rows/image-processing.ts), the images of the fields it names are
 * transformed before they are stored; already hosted URLs are re-processed only with
 * `force_reprocess_hosted`.
 * @returns the number of URLs hosted, failed and processed (for the debug log)
 */
export async function hostResultMedia(
  knex: Knex,
  storage: EnrichmentStorage,
  fetcher: Fetcher | undefined,
  organizationId: string,
  result: EnrichmentResult,
  fields: OutputField[],
  strict: boolean,
  processing?: ImageProcessingOptions,
): Promise<{ hosted: number; failed: number; processed: number }> {
  let hosted = 0;
  let failed = 0;
  let processed = 0;
  /** Hosts bytes, transformed first when the field's images are processed (a failed transform hosts the original). */
  const host = async (field: string, bytes: Buffer, contentType: string, url: string): Promise<string | null> => {
    if (processesField(processing, field) && /^image\//i.test(contentType)) {
      try {
        const out = await processImage(bytes, contentType, processing!);
        processed++;
        return await hostBytes(knex, storage, organizationId, out.bytes, out.contentType, url);
      } catch (err) {
        result.review_info.field_issues.push({ field, message: `Image not processed (${(err as Error).message}); hosted as it was.` });
      }
    }
    return hostBytes(knex, storage, organizationId, bytes, contentType, url);
  };
  const after = result.after_data;
  for (const field of fields.filter(isMediaField)) {
    const value = after[field.name];
    if (value === undefined || value === null) continue;
    const urls = (Array.isArray(value) ? value : [value]).map(String);
    const rewritten: string[] = [];
    let fieldFailed = false;
    for (const url of urls) {
      const hostedFile = url.startsWith(mediaPrefix(storage)) ? url.slice(mediaPrefix(storage).length) : null;
      if (hostedFile !== null && !(processing?.force_reprocess_hosted && processesField(processing, field.name))) {
        rewritten.push(url);
        continue;
      }
      let hostedUrl: string | null = null;
      try {
        if (hostedFile !== null) {
          const media = await readMedia(knex, storage, hostedFile);
          hostedUrl = await host(field.name, await bufferOf(media.body), media.content_type, url);
        } else if (fetcher && /^https?:\/\//i.test(url)) {
          const page = await fetcher.fetch(url);
          if (page.status === 200) hostedUrl = await host(field.name, Buffer.from(page.body), page.content_type ?? '', url);
        }
      } catch {
        hostedUrl = null;
      }
      if (hostedUrl) hosted++;
      else {
        failed++;
        fieldFailed = true;
      }
      rewritten.push(hostedUrl ?? url);
    }
    if (fieldFailed && strict) {
      delete after[field.name];
      delete after.sources[field.name];
      delete after.source_explanations[field.name];
      result.review_info.field_issues.push({ field: field.name, message: 'Cleared: the media could not be hosted (strict_hosted_media).' });
      continue;
    }
    if (fieldFailed) result.review_info.field_issues.push({ field: field.name, message: 'Some media could not be hosted; the original URLs are kept.' });
    after[field.name] = Array.isArray(value) ? rewritten : rewritten[0];
  }
  return { hosted, failed, processed };
}

/**
 * `GET /api/public/media/{sha256}.{ext}`: a hosted media file. Public (content-addressed, so the
 * URL is unguessable without the content), because hosted URLs are meant to be embedded.
 * @throws NotFoundError (404) for an unknown file
 */
export async function readMedia(knex: Knex, storage: EnrichmentStorage, file: string): Promise<{ body: Readable; content_type: string }> {
  const m = /^([0-9a-f]{64})\.([a-z0-9]{2,5})$/.exec(file.toLowerCase());
  if (!m || !EXT_TYPES[m[2]]) throw new NotFoundError('Media not found');
  const row = await HostedMedia.query(knex).where({ sha256: m[1], ext: m[2] }).first().select('content_type');
  const body = row ? await storage.blobs.get(contentKey('media', m[1], `.${m[2]}`)) : null;
  if (!row || !body) throw new NotFoundError('Media not found');
  return { body, content_type: row.content_type };
}
