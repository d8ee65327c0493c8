import fs from 'node:fs/promises';
import type { Knex } from 'knex';
import { knowledgeBaseDocuments, KnowledgeBaseFileError } from '../../../enrichment';
import type { KnowledgeBaseDocument } from '../../../enrichment/types';
import type { BoundedCache } from '../../../lib/bounded-cache';
import { ValidationError } from '../../../lib/errors';
import { EnrichmentJobDocument } from '../../../models/enrichment-job-document';
import { EnrichmentStorage, hostFile } from './artifacts';
import type { EnrichJobConfig } from '../../../schemas/enrich';
import type { Scope } from '../../access/scope';

/** An uploaded knowledge-base file on disk (multipart `knowledge_base_files`). */
export interface UploadedKnowledgeFile {
  path: string;
  originalname: string;
  mimetype: string;
}

/**
 * Hosts uploaded knowledge-base files, lists them in `config.knowledge_base_sources` as
 * `SOURCE_<n>` → hosted URL (after the request's own entries), and converts each into a
 * readable document for the engine (docs/api-enrichment.md "Extra request fields" `knowledge_base_sources`).
 * @returns the documents, whose `source_id` matches the `knowledge_base_sources` key
 * @throws ValidationError (422 at `body.knowledge_base_files.<i>`) for a file that cannot be
 *   hosted or read as PDF, HTML, CSV or text
 */
export async function hostKnowledgeBase(
  knex: Knex,
  storage: EnrichmentStorage,
  scope: Scope,
  config: EnrichJobConfig,
  files: UploadedKnowledgeFile[],
): Promise<KnowledgeBaseDocument[]> {
  if (files.length === 0) return [];
  const sources: Record<string, string> = { ...(config.knowledge_base_sources ?? {}) };
  let n = Object.keys(sources).length;
  const documents: KnowledgeBaseDocument[] = [];
  for (const [i, f] of files.entries()) {
    const url = await hostFile(knex, storage, scope.organizationId, f.path, f.mimetype, f.originalname);
    if (!url)
      throw ValidationError.at(['body', 'knowledge_base_files', i], `Unsupported document type ${f.mimetype}: PDF, HTML, text, markdown or CSV`, 'value_error');
    while (sources[`SOURCE_${++n}`]);
    const sourceId = `SOURCE_${n}`;
    sources[sourceId] = url;
    try {
      const [doc] = await knowledgeBaseDocuments([{ name: f.originalname, content_type: f.mimetype, bytes: await fs.readFile(f.path), hosted_url: url }]);
      documents.push({ ...doc, source_id: sourceId });
    } catch (err) {
      if (err instanceof KnowledgeBaseFileError) throw ValidationError.at(['body', 'knowledge_base_files', i], err.message, 'value_error');
      throw err;
    }
  }
  config.knowledge_base_sources = sources;
  config.knowledge_base_enabled = true;
  return documents;
}

/** Stores a job's knowledge-base documents (in the job's creating transaction). */
export async function saveJobDocuments(trx: Knex.Transaction, jobId: string, documents: KnowledgeBaseDocument[]): Promise<void> {
  if (documents.length) await EnrichmentJobDocument.query(trx).insert({ job_id: jobId, documents });
}

/** Loaded documents by job id (EnrichmentCaches.jobDocuments, 16 jobs kept). */
export type JobDocumentsCache = BoundedCache<KnowledgeBaseDocument[]>;

/**
 * A job's knowledge-base documents ([] when none), kept in `cache`: a job's rows all use the
 * same documents, and they never change after the job is created.
 */
export async function jobDocuments(knex: Knex, cache: JobDocumentsCache, jobId: string): Promise<KnowledgeBaseDocument[]> {
  const hit = cache.get(jobId);
  if (hit) return hit;
  const row = await EnrichmentJobDocument.query(knex).findById(jobId).select('documents');
  const documents = row?.documents ?? [];
  cache.set(jobId, documents);
  return documents;
}
