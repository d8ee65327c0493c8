import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { BoundedCache } from '../../../lib/bounded-cache';
import { EnrichmentEvidenceDocument } from '../../../models/enrichment-evidence-document';

/**
 * Research evidence stored content-addressed (table `enrichment_evidence_documents`, migration
 * 20261121180000_evidence_documents): a row's evidence was ~57 KB of JSON, mostly parsed pages
 * that many rows of an organization share; each page is stored once per organization by the
 * SHA-256 of its JSON and the row keeps a `doc_ref` (bench/row-cost.ts; ./rows.ts explains the
 * measurements).
 */

/** A stored evidence document whose parsed page lives in `enrichment_evidence_documents`. */
interface DocRef {
  doc_ref: string;
}

/**
 * Keys (`<organization>:<sha256>`) of evidence documents this process has seen committed
 * (EnrichmentCaches.knownEvidenceDocs, 50,000 kept; a forgotten key only costs one
 * `ON CONFLICT DO NOTHING` insert).
 */
export type KnownEvidenceDocs = BoundedCache<true>;

/** Remembers committed documents in `known`. */
export function rememberEvidenceDocuments(known: KnownEvidenceDocs, organizationId: string, fresh: Array<[string, string]>): void {
  for (const [h] of fresh) known.set(`${organizationId}:${h}`, true);
}

/** True for a JSON object (not an array, not null). */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Splits a row's evidence into what the row keeps and the parsed pages to store once per
 * organization, content-addressed by the SHA-256 of their JSON (table
 * `enrichment_evidence_documents`, migration 20261121180000_evidence_documents): the returned
 * `evidence` is the same object with each `documents[i].doc` replaced by `doc_ref` (the hash);
 * `fresh` lists the pages not in `known` (seen committed by this process), sorted by hash.
 * Other evidence shapes (engines whose documents carry no `doc` object) come back unchanged.
 * No I/O.
 */
export function splitEvidence(known: KnownEvidenceDocs, organizationId: string, evidence: unknown): { evidence: unknown; fresh: Array<[string, string]> } {
  if (!isPlainObject(evidence) || !Array.isArray(evidence.documents)) return { evidence, fresh: [] };
  const fresh = new Map<string, string>();
  let changed = false;
  const documents = evidence.documents.map((d) => {
    if (!isPlainObject(d) || !isPlainObject(d.doc)) return d;
    const json = JSON.stringify(d.doc);
    const sha256 = crypto.createHash('sha256').update(json).digest('hex');
    if (!known.has(`${organizationId}:${sha256}`)) fresh.set(sha256, json);
    changed = true;
    const { doc: _doc, ...rest } = d;
    return { ...rest, doc_ref: sha256 } satisfies Record<string, unknown> & DocRef;
  });
  if (!changed) return { evidence, fresh: [] };
  return { evidence: { ...evidence, documents }, fresh: [...fresh].sort(([a], [b]) => (a < b ? -1 : 1)) };
}

/**
 * Inserts parsed pages (`[sha256, json]`, sorted by hash so that concurrent writers of the same
 * new pages wait for each other in one order: no deadlock); pages already stored are skipped
 * (`ON CONFLICT DO NOTHING`: they are immutable, the key is their content).
 */
export async function insertEvidenceDocuments(db: Knex | Knex.Transaction, organizationId: string, fresh: Array<[string, string]>): Promise<void> {
  if (!fresh.length) return;
  await db.raw(
    `INSERT INTO enrichment_evidence_documents (organization_id, sha256, doc)
     SELECT ?::uuid, h, d::jsonb FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS u(h, d, o) ORDER BY o
     ON CONFLICT DO NOTHING`,
    [organizationId, fresh.map(([h]) => h), fresh.map(([, d]) => d)],
  );
}

/**
 * The inverse of {@link splitEvidence} (which writeRowResults of ./row-results.ts applies): a row's stored
 * evidence with every `doc_ref` replaced by its parsed page again, as the engine's `extract`
 * expects (re-extraction). Evidence stored
 * inline (rows written before content addressing) is returned unchanged. A reference whose
 * document is missing is left without `doc`, which the engine skips like an unreadable page.
 */
export async function loadEvidence(knex: Knex, organizationId: string, stored: unknown): Promise<unknown> {
  if (!isPlainObject(stored) || !Array.isArray(stored.documents)) return stored;
  const refs = [...new Set(stored.documents.filter((d): d is DocRef => isPlainObject(d) && typeof d.doc_ref === 'string').map((d) => d.doc_ref))];
  if (refs.length === 0) return stored;
  const found = await EnrichmentEvidenceDocument.query(knex).where({ organization_id: organizationId }).whereIn('sha256', refs).select('sha256', 'doc');
  const docs = new Map(found.map((r) => [r.sha256, r.doc]));
  return {
    ...stored,
    documents: stored.documents.map((d) => {
      if (!isPlainObject(d) || typeof d.doc_ref !== 'string') return d;
      const { doc_ref: ref, ...rest } = d;
      return docs.has(ref) ? { ...rest, doc: docs.get(ref) } : rest;
    }),
  };
}
