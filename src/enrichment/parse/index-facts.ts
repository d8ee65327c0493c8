/**
 * The facts of a page that a research index needs (issue 27 §2, src/services/research-archives):
 * title, meta description, OpenGraph, the JSON-LD/microdata products (names, brands, SKU, GTIN,
 * MPN, descriptions) and the visible text, read with the same parsers as {@link parsePage} but
 * without the extraction-only readings (key/value pairs, price and stock snippets, breadcrumbs,
 * labelled codes), which cost most of a full parse. Extraction parses the page fully when research
 * reads it.
 */
import * as cheerio from 'cheerio';
import { parseJsonLd } from './jsonld';
import { parseMicrodata } from './microdata';
import { parseOpenGraph } from './opengraph';
import type { PageDoc } from './page';
import { productsFromJsonLd, productsFromMicrodata } from './products';

/** What a research index reads of a page: the {@link PageDoc} fields it indexes. */
export type IndexFacts = Pick<PageDoc, 'title' | 'meta_description' | 'opengraph' | 'products' | 'text'>;

/** Whitespace runs as one space, trimmed. */
function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Reads the {@link IndexFacts} of an HTML page (decoding as parsePage: BOM or `<meta charset>`,
 * else UTF-8). Pure; never throws on bad HTML.
 * @param maxText characters of visible text kept (default 30,000)
 */
export function parseIndexFacts(body: Buffer, maxText = 30_000): IndexFacts {
  const $ = cheerio.loadBuffer(body, { xml: { xmlMode: false, decodeEntities: true }, encoding: { defaultEncoding: 'utf-8' } });
  const products = [...productsFromJsonLd(parseJsonLd($)), ...productsFromMicrodata(parseMicrodata($))];
  const facts: IndexFacts = {
    title: collapse($('title').first().text()),
    meta_description: $('meta[name="description" i]').attr('content')?.trim() || undefined,
    opengraph: parseOpenGraph($),
    products,
    text: '',
  };
  $('script,style,noscript,template,svg').remove();
  facts.text = collapse($('body').text() || $.root().text()).slice(0, maxText);
  return facts;
}
