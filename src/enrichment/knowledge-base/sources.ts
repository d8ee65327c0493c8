import type { Candidate } from '../extract/candidates';
import { pageCandidates } from '../extract/candidates';
import { matchPage, nameCoverage, normId, type ItemIdentity } from '../extract/identity';
import { fieldRole, type FieldRole } from '../extract/roles';
import { parsePageWith, type PageDoc, type PageMemo } from '../parse/page';
import { itemIdentifiers, itemName } from '../research/plan';
import { textAsHtml, textTitle } from '../providers/documents';
import type { KnowledgeBaseDocument } from '../types';

/** A knowledge-base document read for one item: its parsed facts and the product it matched. */
export interface KnowledgeBaseSource {
  source_id: string;
  name: string;
  doc: PageDoc;
  /** Index of the matched structured product in `doc.products`, when any. */
  product?: number;
  /** Why it was taken (row match or page match), for explanations. */
  reason: string;
}

/** Minimum share of the item's name tokens a CSV row's name must cover. */
const ROW_NAME_MATCH = 0.8;

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The CSV row of the item: one holding one of its identifiers, else the row whose name-like column covers the name best. */
function matchRow(rows: Array<Record<string, string>>, identity: ItemIdentity): { row: Record<string, string>; reason: string } | null {
  const ids = new Set(identity.identifiers.map(normId).filter((v) => v.length >= 3));
  for (const row of rows) {
    const hit = Object.entries(row).find(([, v]) => v && ids.has(normId(v)));
    if (hit) return { row, reason: `row whose ${hit[0]} is ${hit[1]}` };
  }
  if (!identity.name) return null;
  let best: { row: Record<string, string>; score: number; column: string } | null = null;
  for (const row of rows) {
    for (const [column, v] of Object.entries(row)) {
      if (!v || fieldRole({ name: column, type: 'string', description: '' }) !== 'name') continue;
      const score = nameCoverage(identity.name, v);
      if (score >= ROW_NAME_MATCH && (!best || score > best.score)) best = { row, score, column };
    }
  }
  return best ? { row: best.row, reason: `row whose ${best.column} matches the item name` } : null;
}

/** A CSV row as a two-column spec table, so the page extractors read it as `table` key/values. */
function rowHtml(title: string, row: Record<string, string>): string {
  const cells = Object.entries(row)
    .filter(([k, v]) => k && v)
    .map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
    .join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><table>${cells}</table></body></html>`;
}

/**
 * The knowledge-base documents that concern the item, parsed like web pages: a CSV contributes
 * its matching row (by identifier, else by name) as a spec table; a PDF/text/HTML document is
 * used when {@link matchPage} accepts it for the item (identifier, or enough name tokens in its
 * title: an HTML title, else the text's first line, see {@link textTitle}). The
 * item is identified as in research (name, brand, GTIN/MPN/SKU fields).
 * @param memo the engine's parse memo: every row of a job reads the same documents
 */
export function knowledgeBaseSources(documents: KnowledgeBaseDocument[], item: Record<string, unknown>, memo?: PageMemo): KnowledgeBaseSource[] {
  if (documents.length === 0) return [];
  const ids = itemIdentifiers(item);
  const identity: ItemIdentity = { name: itemName(item), brand: ids.brand, identifiers: [...ids.gtin, ...ids.mpn, ...ids.sku] };
  const out: KnowledgeBaseSource[] = [];
  for (const d of documents) {
    if (d.rows) {
      const hit = matchRow(d.rows, identity);
      if (hit)
        out.push({
          source_id: d.source_id,
          name: d.name,
          doc: parsePageWith(memo, d.source_id, Buffer.from(rowHtml(d.name, hit.row), 'utf8')),
          reason: hit.reason,
        });
      continue;
    }
    const doc = parsePageWith(memo, d.source_id, Buffer.from(d.html ?? textAsHtml(textTitle(d.text, d.name), d.text), 'utf8'));
    const m = matchPage(identity, doc);
    if (m.kind !== 'none') out.push({ source_id: d.source_id, name: d.name, doc, product: m.product, reason: m.reason });
  }
  return out;
}

/**
 * Candidates for one field from the item's knowledge-base sources, read by the same extractors
 * as web pages ({@link pageCandidates}) and relabelled: method `knowledge_base`, cited as
 * `SOURCE_X`, the explanation naming the file.
 */
export function knowledgeBaseCandidates(sources: KnowledgeBaseSource[], role: FieldRole, fieldName: string, synonyms: string[]): Candidate[] {
  return sources.flatMap((s) =>
    pageCandidates(s.doc, role, fieldName, synonyms, s.product !== undefined ? s.doc.products[s.product] : undefined).map((c) => ({
      ...c,
      method: 'knowledge_base' as const,
      url: s.source_id,
      explanation: `${c.explanation.replace(` on ${s.source_id}`, '')} in knowledge-base file "${s.name}" (${s.source_id}, ${s.reason})`,
    })),
  );
}
