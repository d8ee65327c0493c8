/**
 * The grounding check of the pages suite (docs/evaluation.md, "Product pages"): whether a value
 * the engine returned for an unlabelled field (description, image URLs) is written in the page it
 * cites, in the raw HTML or the text a browser shows.
 */
import fs from 'node:fs';
import * as cheerio from 'cheerio';

/** Whitespace collapsed to single spaces, trimmed. */
export function ws(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * Text a value may be found in: raw HTML (also with JSON's escaped slashes `https:\/\/cdn…`
 * undone: the same text in another encoding), the document text as rendered (line breaks and
 * block boundaries as spaces, as a browser shows them) and attribute values. The parts are built
 * when first needed, the raw HTML first (most values are found there, and the parsed text costs
 * most of the suite's scoring time); a needle never holds a line break, so looking in each part
 * finds what looking in their concatenation would.
 */
export class Haystack {
  private readonly parts: string[] = [];
  private raw: string | undefined;

  constructor(private readonly file: string) {}

  /** Whether `needle` occurs in one of the file's parts, building parts until it is found. */
  includes(needle: string): boolean {
    for (let i = 0; ; i++) {
      if (i === this.parts.length && !this.build()) return false;
      if (this.parts[i]!.includes(needle)) return true;
    }
  }

  /** Builds the next parts: the raw HTML's two, then the parsed document's three; false when all are built. */
  private build(): boolean {
    if (this.raw === undefined) {
      this.raw = fs.readFileSync(this.file, 'utf8');
      this.parts.push(ws(this.raw), ws(this.raw.replace(/\\\//g, '/')));
      return true;
    }
    if (this.parts.length > 2) return false;
    const $ = cheerio.loadBuffer(fs.readFileSync(this.file), { encoding: { defaultEncoding: 'utf-8' } });
    const attrs: string[] = [];
    $('meta[content],img[src],a[href],link[href]').each((_, el) => void attrs.push($(el).attr('content') ?? $(el).attr('src') ?? $(el).attr('href') ?? ''));
    const glued = ws($.root().text());
    $('br').replaceWith(' ');
    $('p,div,li,h1,h2,h3,h4,h5,h6,tr,td,th,section,article,blockquote').append(' ');
    this.parts.push(glued, ws($.root().text()), ws(attrs.join(' \n ')));
    return true;
  }
}

/** Whether every value (a string or each of a list; a URL also by its path and query) occurs in the page's text ({@link Haystack}). */
export function grounded(value: unknown, hay: Haystack): boolean {
  const values = Array.isArray(value) ? value.map(String) : [String(value)];
  return values.every((v) => {
    if (hay.includes(ws(v))) return true;
    try {
      const u = new URL(v);
      return hay.includes(u.pathname + u.search) || hay.includes((u.pathname + u.search).replace(/&/g, '&amp;'));
    } catch {
      return false;
    }
  });
}
