import { BaseModel } from './base';

/**
 * A parsed page of research evidence, stored once per organization and content-addressed by the
 * SHA-256 of its JSON (rows keep a `doc_ref`; src/services/enrichment/rows/evidence.ts). Immutable.
 */
export class EnrichmentEvidenceDocument extends BaseModel {
  static tableName = 'enrichment_evidence_documents';
  static idColumn = ['organization_id', 'sha256'];
  static jsonAttributes = ['doc'];
  organization_id!: string;
  /** Hex SHA-256 of the document's JSON text. */
  sha256!: string;
  doc!: unknown;
  created_at!: Date;
}
