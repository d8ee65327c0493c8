/**
 * The facts of a page that a research index needs (src/services/research-archives):
 * title, meta description, OpenGraph, the JSON-LD/microdata products (names, brands, SKU, GTIN,
 * MPN, descriptions) and the visible text. Read in one streaming pass of htmlparser2's tokenizer
 * (the parser cheerio itself runs here), with no DOM: building and querying a DOM was most of the
 * cost of indexing an archive (docs/benchmarks.md#research-archive). Only a page that has
 * microdata (`itemscope`) is also built as a DOM (htmlparser2's DomHandler fed by the same pass),
 * for {@link parseMicrodata}. The readings equal
 * those of the DOM-based parsers (parseJsonLd, parseOpenGraph, `$('body').text()`): the same parser
 * emits the same element and text events that cheerio's tree is built from. Extraction parses the
 * page fully when research reads it.
 */
import * as cheerio from 'cheerio';
import { decodeBuffer } from 'encoding-sniffer';
import { DomHandler, Parser } from 'htmlparser2';
import { parseMicrodata } from './microdata';
import type { PageDoc } from './page';
import { productsFromJsonLd, productsFromMicrodata } from './products';
import { parseTolerantJson } from './tolerant-json';

/** What a research index reads of a page: the {@link PageDoc} fields it indexes. */
export type IndexFacts = Pick<PageDoc, 'title' | 'meta_description' | 'opengraph' | 'products' | 'text'>;

/** Elements whose text is not visible text (as the extraction parser drops them). */
const HIDDEN = new Set(['script', 'style', 'noscript', 'template', 'svg']);

/** Whitespace runs as one space, trimmed. */
function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The top-level values of JSON-LD blocks, as parseJsonLd lists them (arrays flattened, nulls dropped). */
function jsonLdBlocks(scripts: string[]): unknown[] {
  const out: unknown[] = [];
  for (const text of scripts) {
    const value = parseTolerantJson(text);
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) out.push(...value.filter((v) => v !== null && v !== undefined));
    else out.push(value);
  }
  return out;
}

/**
 * Reads the {@link IndexFacts} of an HTML page (decoding as parsePage: BOM or `<meta charset>`,
 * else UTF-8). Pure; never throws on bad HTML.
 * @param maxText characters of visible text kept (default 30,000)
 */
export function parseIndexFacts(body: Buffer, maxText = 30_000): IndexFacts {
  const html = decodeBuffer(body, { defaultEncoding: 'utf-8' });
  const opengraph: Array<[string, string]> = [];
  const scripts: string[] = [];
  let title: string | undefined;
  let titleText = '';
  // The first `<meta name=description>`'s content (`found` once one was seen, content or not).
  const meta: { found: boolean; content?: string } = { found: false };
  // A page with microdata is also built as a DOM, from the same pass's events, for parseMicrodata.
  const dom = /itemscope/i.test(html) ? new DomHandler() : null;
  // Open elements that matter: depth inside <title>, hidden elements, <body>, and the current JSON-LD script.
  let inTitle = 0;
  let hidden = 0;
  let inBody = 0;
  let script: string[] | null = null;
  const bodyText: string[] = [];
  const allText: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        dom?.onopentag(name, attrs);
        if (name === 'title' && title === undefined) inTitle++;
        if (HIDDEN.has(name)) hidden++;
        if (name === 'body') inBody++;
        if (name === 'script' && (attrs.type ?? '').toLowerCase().trim().startsWith('application/ld+json')) script = [];
        if (name === 'meta') {
          if (!meta.found && (attrs.name ?? '').toLowerCase() === 'description') Object.assign(meta, { found: true, content: attrs.content });
          const prop = (attrs.property ?? attrs.name ?? '').trim();
          if (/^(og|product):/i.test(prop) && attrs.content !== undefined) opengraph.push([prop, attrs.content.trim()]);
        }
      },
      ontext(text) {
        dom?.ontext(text);
        if (script) script.push(text);
        if (inTitle) titleText += text;
        if (hidden) return;
        if (inBody) bodyText.push(text);
        allText.push(text);
      },
      onclosetag(name) {
        dom?.onclosetag();
        if (name === 'title' && inTitle) {
          inTitle--;
          if (!inTitle) title = titleText;
        }
        if (HIDDEN.has(name)) hidden--;
        if (name === 'body') inBody--;
        if (name === 'script' && script) {
          scripts.push(script.join(''));
          script = null;
        }
      },
      oncomment: (data) => dom?.oncomment(data),
      oncommentend: () => dom?.oncommentend(),
      onprocessinginstruction: (name, data) => dom?.onprocessinginstruction(name, data),
    },
    { xmlMode: false, decodeEntities: true },
  );
  parser.end(html);
  const products = productsFromJsonLd(jsonLdBlocks(scripts));
  if (dom) {
    dom.onend();
    products.push(...productsFromMicrodata(parseMicrodata(cheerio.load(dom.root, { xml: { xmlMode: false, decodeEntities: true } }))));
  }
  // As `$('body').text() || $.root().text()`: the whole document's text only when the body has none.
  const visible = collapse(bodyText.join('') || allText.join(''));
  return {
    title: collapse(title ?? titleText),
    meta_description: meta.content?.trim() || undefined,
    opengraph,
    products,
    text: visible.slice(0, maxText),
  };
}
