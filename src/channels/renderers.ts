import { stringify } from 'csv-stringify/sync';
import { schemaOrgRenderer } from './render-schema-org';
import type { ChannelDefinition, FeedFormat, FeedRenderer, FeedRow, RenderOptions } from './types';

/**
 * The feed writers (docs/channels.md, "Formats"): tab-separated text and RSS 2.0 XML for Google
 * (product data specification, "Formatting your product data", https://support.google.com/merchants/answer/7052112;
 * XML: https://support.google.com/merchants/answer/160589), CSV for Meta (RFC 4180, written by
 * csv-stringify), JSON Lines of schema.org JSON-LD (./render-schema-org.ts). Each writer is a
 * set of pure functions: the caller streams `header`, rows and `footer` into the file.
 */

/** A cell's text: lists comma-joined (Google and Meta read multi-valued attributes so). */
function cell(v: string | string[] | undefined): string {
  return Array.isArray(v) ? v.join(',') : (v ?? '');
}

/** A TSV field: tabs, carriage returns and line feeds become spaces (TSV has no quoting Google reads). */
export function tsvField(v: string): string {
  return v.replace(/[\t\r\n]+/g, ' ');
}

/** Characters XML 1.0 does not allow (§2.2 Char): C0 controls but tab/LF/CR, lone surrogates, U+FFFE/U+FFFF. */
// eslint-disable-next-line no-control-regex -- matching the control characters XML forbids is the point
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text as XML character data: the five markup characters escaped, characters XML forbids dropped. */
export function xmlText(v: string): string {
  return v.replace(XML_INVALID, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** Attribute names are written as XML element names only when they are safe NCNames (the channel's own names all are). */
const NCNAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

function tsvRenderer(columns: string[]): FeedRenderer {
  const line = (r: FeedRow) => columns.map((c) => tsvField(cell(r[c]))).join('\t') + '\n';
  return {
    format: 'tsv',
    contentType: 'text/tab-separated-values; charset=utf-8',
    extension: 'tsv',
    groupsVariants: false,
    header: () => columns.map(tsvField).join('\t') + '\n',
    row: line,
    group: (_p, variants) => variants.map(line).join(''),
    footer: () => '',
  };
}

function csvRenderer(columns: string[]): FeedRenderer {
  const line = (r: FeedRow) => stringify([columns.map((c) => cell(r[c]))], { record_delimiter: '\n' });
  return {
    format: 'csv',
    contentType: 'text/csv; charset=utf-8',
    extension: 'csv',
    groupsVariants: false,
    header: () => stringify([columns], { record_delimiter: '\n' }),
    row: line,
    group: (_p, variants) => variants.map(line).join(''),
    footer: () => '',
  };
}

function xmlRenderer(opts: RenderOptions): FeedRenderer {
  const item = (r: FeedRow) => {
    const parts: string[] = [];
    for (const [name, v] of Object.entries(r)) {
      if (!NCNAME.test(name)) continue;
      for (const one of Array.isArray(v) ? v : [v]) parts.push(`<g:${name}>${xmlText(one)}</g:${name}>`);
    }
    return `<item>${parts.join('')}</item>\n`;
  };
  return {
    format: 'xml',
    contentType: 'application/xml; charset=utf-8',
    extension: 'xml',
    groupsVariants: false,
    header: () =>
      '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0">\n<channel>\n' +
      `<title>${xmlText(opts.title ?? 'Products')}</title>\n<link>${xmlText(opts.link ?? '')}</link>\n` +
      `<description>${xmlText(opts.description ?? '')}</description>\n`,
    row: item,
    group: (_p, variants) => variants.map(item).join(''),
    footer: () => '</channel>\n</rss>\n',
  };
}

/**
 * The writer of `format` for the channel.
 * @throws Error when the channel does not accept the format (the API checks this first: 422)
 */
export function createRenderer(channel: ChannelDefinition, format: FeedFormat, opts: RenderOptions = {}): FeedRenderer {
  if (!channel.formats.includes(format)) throw new Error(`${channel.name} does not accept ${format} feeds`);
  const columns = opts.columns ?? channel.attributes.map((a) => a.name);
  switch (format) {
    case 'tsv':
      return tsvRenderer(columns);
    case 'csv':
      return csvRenderer(columns);
    case 'xml':
      return xmlRenderer(opts);
    case 'jsonl':
      return schemaOrgRenderer();
  }
}
