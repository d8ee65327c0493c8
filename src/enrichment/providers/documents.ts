import { pageDigest, parsePage, parsePageWith, type PageDoc, type PageMemo } from '../parse/page';
import { pdfText } from './pdf-text';
import type { FetchedPage } from '../research/types';

/** Whether a Content-Type (RFC 9110 §8.3) names an HTML or XHTML page. */
export function isHtmlType(contentType: string): boolean {
  return /^\s*(text\/html|application\/xhtml\+xml)/i.test(contentType);
}

/** Whether a Content-Type names a PDF (RFC 8118 `application/pdf`). */
export function isPdfType(contentType: string): boolean {
  return /^\s*application\/(x-)?pdf/i.test(contentType);
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * Plain text (PDF text layer, a .txt file) as a minimal HTML page: `title` in `<title>`, one
 * `<p>` per non-empty line, so the HTML extractors read it like any page ("Label: value" lines
 * become key/value pairs, the rest visible text).
 */
export function textAsHtml(title: string, text: string): string {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}</body></html>`;
}

/**
 * The title of a plain-text document: its first non-empty line when that is heading-sized
 * (2–120 characters, as data sheets and notes open with the product name), else `fallback`.
 */
export function textTitle(text: string, fallback: string): string {
  const first =
    text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  return first.length >= 2 && first.length <= 120 ? first : fallback;
}

/** {@link parsePage} of plain text via {@link textAsHtml}. */
export function parseText(url: string, title: string, text: string): PageDoc {
  return parsePage(url, Buffer.from(textAsHtml(title, text), 'utf8'));
}

/**
 * The parsed facts of a fetched page whatever its type: HTML/XHTML (or a missing type) from
 * the facts it carries (`page.parsed`, when they are of these bytes) or parsed, through `memo`
 * when given (parse/page.ts PageMemo); PDF through its text layer ({@link pdfText}) rendered as text
 * lines, titled by {@link textTitle}; any other type gives null (not a page the extractors read).
 * @throws Error when a PDF cannot be read (the caller records it as a research problem)
 */
export async function fetchedPageDoc(page: FetchedPage, memo?: PageMemo): Promise<PageDoc | null> {
  if (!page.content_type || /html|xml/i.test(page.content_type)) {
    const known = page.parsed;
    if (known && known.url === page.final_url && known.sha1 === pageDigest(page.body)) return known.doc;
    return parsePageWith(memo, page.final_url, page.body);
  }
  if (isPdfType(page.content_type)) {
    const { pages } = await pdfText(page.body);
    const text = pages.join('\n');
    return parseText(page.final_url, textTitle(text, decodeURIComponent(new URL(page.final_url).pathname.split('/').pop() ?? '') || page.final_url), text);
  }
  return null;
}
