import type { FetchedPage } from '../../../enrichment/research/types';
import type { EnrichmentResult, Evidence, ReviewInfo } from '../../../enrichment/types';
import { storeArtifacts, type ArtifactRecord, type EnrichmentStorage } from './artifacts';
import { rowWarc } from './warc';

/** The `software` of the warcinfo record of every evidence WARC. */
const WARC_SOFTWARE = 'catalog-enrichment-service (warcio.js)';

/** Content type of a stored evidence WARC (`source_artifacts.content_type`). */
export const WARC_CONTENT_TYPE = 'application/warc';

/** The `source_artifacts.url` of a row's evidence WARC. */
export function evidenceWarcUrn(jobId: string, rowIndex: number): string {
  return `urn:evidence-warc:${jobId}:${rowIndex}`;
}

/**
 * Keeps a row's consulted pages as a WARC 1.1 file with the job (`capture_source_artifacts`): writes it (./warc.ts), stores it content-addressed like any artifact, notes
 * each fetch's record in `evidence.fetches[i].warc_record_id`, and maps every cited page URL
 * to its capture in `review_info.source_captures` (`{url: "<job_id>/<record uuid>"}`, which the
 * API's and the dashboard's capture routes serve), so each staged value's source points at
 * the record it was read from.
 * @param pages the row's fetched pages, in the order of `evidence.fetches`
 * @returns the artifact record of the WARC file, or null when no page carried HTTP exchanges
 */
export async function keepRowWarc(
  storage: EnrichmentStorage,
  jobId: string,
  rowIndex: number,
  pages: FetchedPage[],
  evidence: unknown,
  result: EnrichmentResult,
): Promise<ArtifactRecord | null> {
  const warc = await rowWarc(pages, WARC_SOFTWARE);
  if (!warc) return null;
  const urn = evidenceWarcUrn(jobId, rowIndex);
  const [record] = await storeArtifacts(storage, [
    { url: urn, final_url: urn, status: 200, content_type: WARC_CONTENT_TYPE, body: warc.bytes, fetched_at: new Date().toISOString() },
  ]);
  const fetches = (evidence as Partial<Evidence> | null)?.fetches;
  const captures: Record<string, string> = {};
  pages.forEach((page, i) => {
    const id = warc.pageRecords[i];
    if (!id) return;
    if (fetches?.[i]) fetches[i].warc_record_id = id;
    const capture = `${jobId}/${id.replace(/^<urn:uuid:|>$/g, '')}`;
    captures[page.url] = capture;
    captures[page.final_url] = capture;
  });
  (result.review_info as ReviewInfo & { source_captures?: Record<string, string> }).source_captures = captures;
  return record;
}
