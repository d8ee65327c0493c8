import type { CheerioAPI } from 'cheerio';

/** A label/value pair read from a spec table, a definition list or a "Label: value" line. */
export interface KeyValue {
  key: string;
  value: string;
  /** `table` (two-cell row), `dl` (dt/dd), `label` ("Label: value" list item or label+sibling). */
  origin: 'table' | 'dl' | 'label';
}

const MAX_KEY = 60;
const MAX_VALUE = 300;

function clean(text: string): string {
  return text
    .replace(/[\u200e\u200f\u202a-\u202e]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function push(out: KeyValue[], key: string, value: string, origin: KeyValue['origin']): void {
  const k = clean(key).replace(/\s*[:：]\s*$/, '');
  const v = clean(value).replace(/^[:：]\s*/, '');
  if (!k || !v || !/\p{L}/u.test(k) || k.length > MAX_KEY || v.length > MAX_VALUE) return;
  out.push({ key: k, value: v, origin });
}

/**
 * Label/value pairs of a page, in document order: rows of tables with exactly two cells
 * (`th|td`, `td`), `dt`/`dd` pairs, list items and short blocks written "Label: value", and a
 * short element ending in ":" followed by a sibling holding the value. Keys and values are
 * whitespace-collapsed; over-long ones are dropped (they are prose, not specs).
 */
export function parseKeyValues($: CheerioAPI): KeyValue[] {
  const out: KeyValue[] = [];
  $('tr').each((_, tr) => {
    const cells = $(tr).children('th,td');
    if (cells.length === 2) push(out, $(cells[0]).text(), $(cells[1]).text(), 'table');
  });
  $('dl').each((_, dl) => {
    let key: string | null = null;
    $(dl)
      .find('dt,dd')
      .each((__, el) => {
        if (el.tagName.toLowerCase() === 'dt') key = $(el).text();
        else if (key !== null) {
          push(out, key, $(el).text(), 'dl');
          key = null;
        }
      });
  });
  $('li,p').each((_, el) => {
    const text = clean($(el).text());
    if (text.length > MAX_KEY + MAX_VALUE) return;
    const m = /^([^:：]{1,60})[:：]\s*(.+)$/.exec(text);
    if (m) push(out, m[1], m[2], 'label');
  });
  $('span,div,b,strong,label,th,dt').each((_, el) => {
    const $el = $(el);
    if ($el.children().length > 2) return;
    const text = clean($el.text());
    if (!/[:：]$/.test(text) || text.length > MAX_KEY) return;
    const next = $el.next();
    if (next.length) push(out, text, next.text(), 'label');
  });
  return out;
}
