import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import JSZip from 'jszip';
import { CDXIndexer, WARCParser } from 'warcio';
import { bufferOf } from '../../../lib/blob-store';
import { NotFoundError } from '../../../lib/errors';
import { EnrichmentJob } from '../../../models/enrichment-job';
import { SourceArtifact } from '../../../models/source-artifact';
import { loadOwned } from '../../access/ownership';
import type { Scope } from '../../access/scope';
import { readArtifact, type EnrichmentStorage } from './artifacts';
import { WARC_CONTENT_TYPE } from './evidence-warc';

/** The version of the WACZ spec the package follows (specs.webrecorder.net/wacz/1.1.1). */
const WACZ_VERSION = '1.1.1';
const SOFTWARE = 'catalog-enrichment-service (warcio.js, jszip)';

/**
 * The evidence WARC files (one per row, each a few MiB at most) of a job the scope may read, in row order (kept with
 * `capture_source_artifacts`, ./evidence-warc.ts).
 * @throws NotFoundError (404) for an unknown job, ForbiddenError (403) for another organization's
 */
async function jobWarcs(knex: Knex, storage: EnrichmentStorage, scope: Scope, jobId: string): Promise<Buffer[]> {
  await loadOwned<EnrichmentJob>(knex, EnrichmentJob, jobId, scope, 'Job not found');
  const rows = await SourceArtifact.query(knex)
    .where({ organization_id: scope.organizationId, job_id: jobId, content_type: WARC_CONTENT_TYPE })
    .orderBy(['row_index', 'fetched_at'])
    .select('sha256');
  const warcs: Buffer[] = [];
  for (const r of rows) warcs.push(await bufferOf((await readArtifact(knex, storage, scope, r.sha256)).body));
  return warcs;
}

const sha256 = (bytes: Buffer | string): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/**
 * `GET /public/enrich/{job_id}/evidence.wacz`: the job's evidence as a WACZ 1.1.1
 * package (specs.webrecorder.net/wacz/1.1.1), every entry stored uncompressed: the rows' WARC
 * files concatenated as `archive/data.warc.gz`, its CDXJ index `indexes/index.cdxj` (warcio's
 * CDXIndexer, SURT-sorted), `pages/pages.jsonl` (one line per HTML page answered 200), and
 * `datapackage.json` listing each file with its `sha256:` hash and size, plus
 * `datapackage-digest.json` (the hash of datapackage.json).
 * @throws NotFoundError (404) for an unknown job or a job that kept no evidence (it ran without
 *   `capture_source_artifacts`, or consulted no live page); ForbiddenError (403)
 */
export async function evidenceWacz(knex: Knex, storage: EnrichmentStorage, scope: Scope, jobId: string): Promise<Buffer> {
  const warcs = await jobWarcs(knex, storage, scope, jobId);
  if (warcs.length === 0) throw new NotFoundError('This job kept no evidence: run it with capture_source_artifacts: true on live web research.');
  const warc = Buffer.concat(warcs);
  const indexer = new CDXIndexer({ format: 'cdxj' });
  const cdx: string[] = [];
  const pages: string[] = [JSON.stringify({ format: 'json-pages-1.0', id: 'pages', title: 'All Pages' })];
  for await (const entry of indexer.iterRecords(new WARCParser([warc]), 'data.warc.gz')) {
    cdx.push(indexer.serializeCDXJ(entry));
    const url = String(entry.url);
    if (Number(entry.status) === 200 && /html/.test(String(entry.mime)) && !url.endsWith('/robots.txt') && !url.startsWith('urn:'))
      pages.push(
        JSON.stringify({ id: createHash('sha1').update(`${url} ${entry.timestamp}`).digest('hex').slice(0, 24), url, ts: tsIso(String(entry.timestamp)) }),
      );
  }
  const entries: Array<[string, Buffer]> = [
    ['archive/data.warc.gz', warc],
    ['indexes/index.cdxj', Buffer.from(cdx.sort().join(''))],
    ['pages/pages.jsonl', Buffer.from(`${pages.join('\n')}\n`)],
  ];
  const datapackage = JSON.stringify(
    {
      profile: 'data-package',
      wacz_version: WACZ_VERSION,
      title: `Evidence of enrichment job ${jobId}`,
      software: SOFTWARE,
      created: new Date().toISOString(),
      resources: entries.map(([path, bytes]) => ({ name: path.split('/').pop(), path, hash: sha256(bytes), bytes: bytes.length })),
    },
    null,
    2,
  );
  const zip = new JSZip();
  for (const [path, bytes] of entries) zip.file(path, bytes, { compression: 'STORE' });
  zip.file('datapackage.json', datapackage, { compression: 'STORE' });
  zip.file('datapackage-digest.json', JSON.stringify({ path: 'datapackage.json', hash: sha256(datapackage) }), { compression: 'STORE' });
  return zip.generateAsync({ type: 'nodebuffer', compression: 'STORE' });
}

/** A CDXJ timestamp (`YYYYMMDDhhmmss`) as ISO 8601. */
function tsIso(ts: string): string {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})/.exec(ts);
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z` : ts;
}

/** A captured page as it was seen: the record's payload and what it was. */
export interface Capture {
  url: string;
  date: string;
  /** HTTP status of a response record; 200 for a resource record (rendered DOM, screenshot). */
  status: number;
  content_type: string;
  body: Buffer;
}

/**
 * The payload of one record of a job's evidence WARCs (`review_info.source_captures` names it as
 * `<job_id>/<record uuid>`): the page exactly as the fetcher received it (or the rendered DOM).
 * @throws NotFoundError (404) for an unknown job or record; ForbiddenError (403)
 */
export async function readCapture(knex: Knex, storage: EnrichmentStorage, scope: Scope, jobId: string, recordId: string): Promise<Capture> {
  const wanted = `<urn:uuid:${recordId.toLowerCase()}>`;
  for (const warc of await jobWarcs(knex, storage, scope, jobId)) {
    for await (const record of new WARCParser([warc])) {
      if (record.warcHeaders.headers.get('WARC-Record-ID') !== wanted) continue;
      const body = Buffer.from(await record.readFully(true));
      const http = record.httpHeaders;
      return {
        url: record.warcTargetURI ?? '',
        date: record.warcDate ?? '',
        status: http ? Number(http.statusCode) : 200,
        content_type: (http ? http.headers.get('content-type') : record.warcContentType) ?? 'application/octet-stream',
        body,
      };
    }
  }
  throw new NotFoundError('Capture not found');
}
