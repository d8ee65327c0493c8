import { html, type SafeHtml } from './html';

/**
 * Before → after highlighting of one field for the review dashboard ("the difference
 * highlighted"). Values are shown as text (strings as they are, everything else as JSON); the
 * common prefix and suffix (on word boundaries) stay plain, the differing middle is marked
 * `<del>` in the before value and `<ins>` in the after value.
 */

/** Longest value shown in the table, in characters; longer values are cut with an ellipsis. */
export const MAX_SHOWN_CHARS = 600;

/** A value as the dashboard shows it: '' for absent/null, strings unquoted, others as JSON. */
export function displayValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_SHOWN_CHARS ? text.slice(0, MAX_SHOWN_CHARS) + '…' : text;
}

/** Moves a cut position back to the start of its word so highlights never split a word. */
function toWordStart(text: string, at: number): number {
  let i = at;
  while (i > 0 && /\w/.test(text[i - 1]) && /\w/.test(text[i] ?? '')) i--;
  return i;
}

/** Moves a cut position (counted from the end) back so it never splits a word. */
function toWordEnd(text: string, fromEnd: number): number {
  let n = fromEnd;
  const at = () => text.length - n;
  while (n > 0 && /\w/.test(text[at()] ?? '') && /\w/.test(text[at() - 1] ?? '')) n--;
  return n;
}

/** The two cells of one field: before with removed text in `<del>`, after with added text in `<ins>`. */
export function diffCells(before: unknown, after: unknown): { before: SafeHtml; after: SafeHtml } {
  const a = displayValue(before);
  const b = displayValue(after);
  if (a === b) return { before: html`${a}`, after: html`${b}` };
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  pre = Math.min(toWordStart(a, pre), toWordStart(b, pre));
  suf = Math.min(toWordEnd(a, suf), toWordEnd(b, suf));
  const mark = (t: string, tag: 'del' | 'ins') => {
    const mid = t.slice(pre, t.length - suf);
    const body = tag === 'del' ? html`<del>${mid}</del>` : html`<ins>${mid}</ins>`;
    return html`${t.slice(0, pre)}${mid ? body : ''}${t.slice(t.length - suf)}`;
  };
  return { before: a ? mark(a, 'del') : html`<span class="empty">(empty)</span>`, after: b ? mark(b, 'ins') : html`<span class="empty">(empty)</span>` };
}
