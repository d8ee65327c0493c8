/**
 * Reading WARC files (ISO 28500:2017 WARC 1.1, and 1.0) with webrecorder's `warcio`: the page
 * records of a whole file as a stream (for indexing) and one record at a known offset (for
 * research). Plain `.warc` and `.warc.gz` (one gzip member per record, ISO 28500 Annex D) both
 * work; for gzip files offsets and lengths are those of the compressed member, as in CDX indexes.
 * The writer of evidence WARCs lives with the live fetcher; this module only reads.
 */
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { WARCParser, type WARCRecord } from 'warcio';
import { isHtmlType, isPdfType } from '../../providers/documents';

/** A response (or resource) record that holds an HTML or PDF page with a 2xx status. */
export interface WarcPage {
  /** `WARC-Target-URI`: the capture's original URL. */
  url: string;
  /** `WARC-Date` as ISO 8601 (the capture date), when the record has one. */
  captured_at: string | null;
  /** `WARC-Record-ID` (`<urn:uuid:…>`). */
  record_id: string | null;
  /** The payload's Content-Type (HTTP header of a response, the block's of a resource). */
  content_type: string;
  /** Byte offset of the record in the file, and its length (compressed member for `.warc.gz`). */
  offset: number;
  length: number;
  /** The payload with transfer and content encodings removed. */
  body: Buffer;
}

/** Why a record of a WARC file was not indexed as a page (counted per reason in an archive's progress). */
export type WarcSkipReason = 'not_a_response' | 'revisit' | 'no_target_uri' | 'http_status_not_2xx' | 'unsupported_type' | 'too_large';

/** One record read from a file: a page, or the reason it is not one. */
export type WarcEntry = { page: WarcPage } | { skipped: WarcSkipReason };

/** Largest payload read as a page (bytes); larger records are skipped as `too_large`. */
export const WARC_MAX_PAGE_BYTES = 20 * 1024 * 1024;

/** The payload's Content-Type: the HTTP header of a response record, else the record's own. */
function payloadType(record: WARCRecord): string {
  if (record.warcType === 'response') return record.httpHeaders?.headers.get('content-type') ?? '';
  return record.warcContentType ?? '';
}

/** What one record is: a page (payload read) or a skip reason (payload left unread). */
async function classify(record: WARCRecord, offset: number, length: number): Promise<WarcEntry> {
  // warcio reads any header block; a WARC record's first line is `WARC/1.0` or `WARC/1.1` (ISO 28500 §5).
  const version = record.warcHeaders.statusline ?? '';
  if (!/^WARC\/1\.[01]\s*$/.test(version)) throw new Error(`not a WARC record at offset ${offset} (first line ${JSON.stringify(version.slice(0, 40))})`);
  const type = record.warcType;
  if (type === 'revisit') return { skipped: 'revisit' };
  if (type !== 'response' && type !== 'resource') return { skipped: 'not_a_response' };
  const url = record.warcTargetURI;
  if (!url) return { skipped: 'no_target_uri' };
  const status = type === 'response' ? Number(record.httpHeaders?.statusCode ?? 0) : 200;
  if (status < 200 || status > 299) return { skipped: 'http_status_not_2xx' };
  const contentType = payloadType(record);
  if (!isHtmlType(contentType) && !isPdfType(contentType)) return { skipped: 'unsupported_type' };
  if (record.warcContentLength > WARC_MAX_PAGE_BYTES) return { skipped: 'too_large' };
  const body = Buffer.from(await record.readFully(true));
  const date = record.warcDate ? new Date(record.warcDate) : null;
  return {
    page: {
      url,
      captured_at: date && !Number.isNaN(date.getTime()) ? date.toISOString() : null,
      record_id: record.warcHeader('WARC-Record-ID') ?? null,
      content_type: contentType,
      offset,
      length,
      body,
    },
  };
}

/**
 * Every record of a WARC file in order, as a page or a skip reason; the file is streamed, so
 * memory stays one record whatever the file's size.
 * @throws Error (from warcio or the file system) when the file cannot be read, or a record does not
 *   open with a WARC/1.0 or WARC/1.1 line
 */
export async function* readWarcEntries(file: string): AsyncGenerator<WarcEntry> {
  const parser = new WARCParser(fs.createReadStream(file));
  for await (const record of parser) {
    const entry = await classify(record, parser.offset, 0);
    // The record's length is known once its block was read (warcio counts the bytes consumed).
    if ('page' in entry) entry.page.length = parser.recordLength;
    yield entry;
  }
}

/**
 * The page record stored at `offset` (`length` bytes) of a WARC file: how research reads an
 * archived page the index points at.
 * @returns null when the record there is not a page
 * @throws Error when the file cannot be read or holds no WARC record at that offset
 */
export async function readWarcPageAt(file: string, offset: number, length: number): Promise<WarcPage | null> {
  return readWarcPageFrom(fs.createReadStream(file, warcRecordRange(offset, length)), file, offset, length);
}

/** The byte range (both ends included) of the record at `offset` of `length` bytes (at least one byte). */
export function warcRecordRange(offset: number, length: number): { start: number; end: number } {
  return { start: offset, end: offset + Math.max(1, length) - 1 };
}

/**
 * The page record in `stream`, the bytes of one record ({@link warcRecordRange}) that starts at
 * `offset` of the WARC file `label` names; the stream is closed afterwards.
 * @returns null when the record is not a page
 * @throws Error when the stream holds no WARC record
 */
export async function readWarcPageFrom(stream: Readable, label: string, offset: number, length: number): Promise<WarcPage | null> {
  try {
    const record = await new WARCParser(stream).parse();
    if (!record) throw new Error(`${label}: no WARC record at offset ${offset}`);
    const entry = await classify(record, offset, length);
    return 'page' in entry ? entry.page : null;
  } finally {
    stream.destroy();
  }
}
