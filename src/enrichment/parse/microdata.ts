import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { own } from '../../lib/objects';

/** One microdata item in extruct's shape: `{type, properties, id?}`; values are strings or items. */
export interface MicrodataItem {
  type?: string | string[];
  id?: string;
  properties: Record<string, MicrodataValue | MicrodataValue[]>;
}
/** A property value: text/URL, or a nested item. */
export type MicrodataValue = string | MicrodataItem;

const URL_ATTRS: Record<string, string> = {
  a: 'href',
  area: 'href',
  link: 'href',
  img: 'src',
  audio: 'src',
  video: 'src',
  source: 'src',
  embed: 'src',
  iframe: 'src',
  track: 'src',
  object: 'data',
};

function absolute(url: string, base: string | undefined): string {
  if (!base) return url;
  try {
    return new URL(url, base).href;
  } catch {
    return url;
  }
}

/**
 * Parses HTML microdata (WHATWG HTML §5.2): top-level items are `itemscope` elements without
 * `itemprop`; properties are collected from descendants (not crossing nested items) and from
 * `itemref` targets; values follow the element rules (`meta@content`, `a@href`, `img@src`,
 * `time@datetime`, `data@value`, otherwise text with whitespace collapsed). URLs are resolved
 * against `baseUrl` when given. Output shape follows extruct's microdata syntax.
 */
export function parseMicrodata($: CheerioAPI, baseUrl?: string): MicrodataItem[] {
  const items: MicrodataItem[] = [];
  $('[itemscope]').each((_, el) => {
    if ($(el).attr('itemprop') === undefined) items.push(readItem($, el, baseUrl, new Set()));
  });
  return items;
}

function readItem($: CheerioAPI, root: Element, baseUrl: string | undefined, seen: Set<Element>): MicrodataItem {
  seen.add(root);
  const item: MicrodataItem = { properties: {} };
  const type = ($(root).attr('itemtype') ?? '').trim();
  if (type) {
    const types = type.split(/\s+/);
    item.type = types.length === 1 ? types[0] : types;
  }
  const id = $(root).attr('itemid');
  if (id) item.id = absolute(id.trim(), baseUrl);
  const props: Element[] = [];
  const collect = (parent: AnyNode): void => {
    for (const child of $(parent).children().toArray()) {
      if ($(child).attr('itemprop') !== undefined) props.push(child);
      if ($(child).attr('itemscope') === undefined) collect(child);
    }
  };
  collect(root);
  for (const ref of ($(root).attr('itemref') ?? '').split(/\s+/).filter(Boolean)) {
    const target = $(`[id="${ref.replace(/"/g, '\\"')}"]`).get(0);
    if (!target) continue;
    // A referenced item that is itself a property is one value; otherwise its properties join
    // this item (extruct's reading of itemref, also for a referenced itemscope without itemprop).
    if ($(target).attr('itemprop') !== undefined) props.push(target);
    else collect(target);
  }
  for (const prop of props) {
    const names = ($(prop).attr('itemprop') ?? '').trim().split(/\s+/).filter(Boolean);
    const value: MicrodataValue =
      $(prop).attr('itemscope') !== undefined ? (seen.has(prop) ? 'ERROR' : readItem($, prop, baseUrl, seen)) : readValue($, prop, baseUrl);
    for (const name of names) {
      const existing = item.properties[name];
      if (existing === undefined) item.properties[name] = value;
      else if (Array.isArray(existing)) existing.push(value);
      else item.properties[name] = [existing, value];
    }
  }
  return item;
}

function readValue($: CheerioAPI, el: Element, baseUrl: string | undefined): string {
  const tag = el.tagName.toLowerCase();
  const $el = $(el);
  if (tag === 'meta') return ($el.attr('content') ?? '').trim();
  const urlAttr = own(URL_ATTRS, tag);
  if (urlAttr) return absolute(($el.attr(urlAttr) ?? '').trim(), baseUrl);
  if (tag === 'time' && $el.attr('datetime') !== undefined) return ($el.attr('datetime') ?? '').trim();
  if ((tag === 'data' || tag === 'meter') && $el.attr('value') !== undefined) return ($el.attr('value') ?? '').trim();
  if ($el.attr('content') !== undefined) return ($el.attr('content') ?? '').trim();
  return blockText($, el);
}

const BLOCK = 'p,div,li,ul,ol,h1,h2,h3,h4,h5,h6,tr,table,section,article,blockquote';

/** Text with `<br>` and block boundaries kept as line breaks, spaces collapsed within lines. */
function blockText($: CheerioAPI, el: Element): string {
  const copy = $(el).clone();
  copy.find('br').replaceWith('\u2029');
  copy.find(BLOCK).each((_, b) => void $(b).append('\u2029'));
  return copy
    .text()
    .split('\u2029')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

/** Elements whose microdata value is an attribute, not their text (WHATWG HTML §5.2.4). */
const ATTRIBUTE_VALUED = new Set([
  'meta',
  'a',
  'area',
  'link',
  'img',
  'audio',
  'video',
  'source',
  'track',
  'iframe',
  'embed',
  'object',
  'time',
  'data',
  'meter',
]);

/**
 * The page's visible writings that are themselves microdata property values: the whitespace-
 * collapsed text of each `itemprop` element whose value is its own text (WHATWG HTML §5.2.4: not
 * an item, no `content`, URL, `datetime` or `value` attribute), up to 100 characters, at most
 * `limit` distinct ones in document order. A spec row or label that reads one of them reads the
 * microdata's own writing, not a second one.
 */
export function textValuedProperties($: CheerioAPI, limit = 300): string[] {
  const out = new Set<string>();
  $('[itemprop]').each((_, el) => {
    const $el = $(el);
    if (out.size >= limit || ATTRIBUTE_VALUED.has(el.tagName.toLowerCase()) || $el.attr('content') !== undefined || $el.attr('itemscope') !== undefined) return;
    const text = $el.text().replace(/\s+/g, ' ').trim();
    if (text && text.length <= 100) out.add(text);
  });
  return [...out];
}
