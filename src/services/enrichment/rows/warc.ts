import { STATUS_CODES } from 'node:http';
import { WARCRecord, WARCSerializer } from 'warcio';
import type { FetchedPage, HttpExchange } from '../../../enrichment/research/types';

/**
 * A row's consulted pages as WARC 1.1 (ISO 28500:2017), written with warcio: one
 * `warcinfo` record, then per HTTP exchange a `request` record and its `response` record
 * (`WARC-Concurrent-To` the request), robots.txt included; a response reused from the fetch
 * cache is written as its original response (dated when it was fetched); a rendered page's DOM
 * and screenshot are `resource` records (`urn:dom:<url>`, `urn:view:<url>`). Every record is
 * its own gzip member, so the file is a valid `.warc.gz` and files concatenate.
 */
export interface RowWarc {
  /** The `.warc.gz` bytes. */
  bytes: Buffer;
  /** Per page (same order as the input), the WARC-Record-ID of the record holding the bytes it was read from; null when none. */
  pageRecords: Array<string | null>;
}

/** Response headers that describe a transfer we undid (the stored payload is the decoded body). */
const TRANSFER_HEADERS = new Set(['transfer-encoding', 'content-encoding', 'content-length', 'set-cookie', 'connection', 'keep-alive']);

function statusLine(status: number): string {
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd();
}

/** WARC-Date: ISO 8601 UTC (WARC 1.1 allows fractional seconds). */
function warcDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? new Date().toISOString() : d.toISOString();
}

/** The records of one exchange; returns the id of the record holding its payload. */
async function exchangeRecords(e: HttpExchange, out: Uint8Array[]): Promise<string | null> {
  const date = warcDate(e.started_at);
  if (e.purpose === 'render') {
    const type = e.response_headers.find(([k]) => k === 'content-type')?.[1] ?? 'text/html';
    const resource = WARCRecord.create({ url: e.url, date, type: 'resource', warcVersion: 'WARC/1.1', warcHeaders: { 'Content-Type': type } }, [e.body]);
    out.push(await WARCSerializer.serialize(resource, { gzip: true }));
    return resource.warcHeaders.headers.get('WARC-Record-ID') ?? null;
  }
  let requestId: string | null = null;
  if (!e.stored) {
    const target = new URL(e.url);
    const request = WARCRecord.create(
      {
        url: e.url,
        date,
        type: 'request',
        warcVersion: 'WARC/1.1',
        statusline: `GET ${target.pathname}${target.search} HTTP/1.1`,
        httpHeaders: [['host', target.host], ...e.request_headers],
      },
      [],
    );
    out.push(await WARCSerializer.serialize(request, { gzip: true }));
    requestId = request.warcHeaders.headers.get('WARC-Record-ID') ?? null;
  }
  if (e.status === 0) return null;
  const headers = e.response_headers.filter(([k]) => !TRANSFER_HEADERS.has(k.toLowerCase()));
  const response = WARCRecord.create(
    {
      url: e.url,
      date,
      type: 'response',
      warcVersion: 'WARC/1.1',
      statusline: statusLine(e.status),
      httpHeaders: [...headers, ['content-length', String(e.body.length)]],
      warcHeaders: requestId ? { 'WARC-Concurrent-To': requestId } : {},
    },
    [e.body],
  );
  out.push(await WARCSerializer.serialize(response, { gzip: true }));
  return response.warcHeaders.headers.get('WARC-Record-ID') ?? null;
}

/**
 * Writes the exchanges of `pages` (FetchedPage.exchanges; pages without any, such as the offline
 * archive's, contribute nothing) as one gzipped WARC 1.1 file.
 * @returns null when no page has an exchange
 */
export async function rowWarc(pages: FetchedPage[], software: string): Promise<RowWarc | null> {
  if (!pages.some((p) => p.exchanges?.length)) return null;
  const out: Uint8Array[] = [];
  const info = WARCRecord.createWARCInfo({ warcVersion: 'WARC/1.1', filename: 'evidence.warc.gz' }, { software, format: 'WARC File Format 1.1' });
  out.push(await WARCSerializer.serialize(info, { gzip: true }));
  const pageRecords: Array<string | null> = [];
  for (const page of pages) {
    // The page's bytes: its rendered DOM, else the last response of its final URL (robots.txt aside).
    let dom: string | null = null;
    let response: string | null = null;
    for (const e of page.exchanges ?? []) {
      const id = await exchangeRecords(e, out);
      if (id && e.purpose === 'render' && e.url.startsWith('urn:dom:')) dom = id;
      else if (id && e.purpose === undefined && e.url === page.final_url) response = id;
    }
    pageRecords.push(dom ?? response);
  }
  return { bytes: Buffer.concat(out), pageRecords };
}
