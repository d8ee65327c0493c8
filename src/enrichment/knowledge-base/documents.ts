import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { parsePage } from '../parse/page';
import { pdfText } from '../providers/pdf-text';
import type { KnowledgeBaseDocument } from '../types';

/** An uploaded knowledge-base file as the service stores it. */
export interface KnowledgeBaseFile {
  /** Original file name (shown in explanations). */
  name: string;
  /** MIME type sent with the upload; the file extension decides when it is generic. */
  content_type: string;
  bytes: Buffer;
  /** Where the service hosts the file (the value of `knowledge_base_sources[SOURCE_X]`). */
  hosted_url: string;
}

/** A file that is not PDF, HTML, CSV or text, or cannot be read as one. */
export class KnowledgeBaseFileError extends Error {
  constructor(name: string, reason: string) {
    super(`knowledge-base file "${name}": ${reason}`);
    this.name = 'KnowledgeBaseFileError';
  }
}

type Kind = 'pdf' | 'html' | 'csv' | 'text';

function kindOf(file: KnowledgeBaseFile): Kind | null {
  const type = file.content_type.toLowerCase();
  const ext = path.extname(file.name).toLowerCase();
  if (/pdf/.test(type) || ext === '.pdf') return 'pdf';
  if (/html|xhtml/.test(type) || ext === '.html' || ext === '.htm') return 'html';
  if (/csv/.test(type) || ext === '.csv') return 'csv';
  if (/^text\//.test(type) || ['.txt', '.md', '.text'].includes(ext)) return 'text';
  return null;
}

/** UTF-8 text of a file, without a BOM. */
function utf8(bytes: Buffer): string {
  return bytes.toString('utf8').replace(/^\uFEFF/, '');
}

/**
 * Converts uploaded knowledge-base files into {@link KnowledgeBaseDocument}s named `SOURCE_1`,
 * `SOURCE_2`… in the given order: PDF → text layer (unpdf/PDF.js, no OCR); HTML → visible
 * text plus the markup (so JSON-LD, microdata and spec tables are read as on a web page);
 * CSV (RFC 4180, first row = header, delimiter `,` or `;` guessed from the header) → records;
 * text → the text. Files are decoded as UTF-8 (HTML honours its `<meta charset>`).
 * @throws KnowledgeBaseFileError for an unsupported type or an unreadable PDF/CSV
 */
export async function knowledgeBaseDocuments(files: KnowledgeBaseFile[]): Promise<KnowledgeBaseDocument[]> {
  const out: KnowledgeBaseDocument[] = [];
  for (const [i, file] of files.entries()) {
    const base = { source_id: `SOURCE_${i + 1}`, name: file.name, hosted_url: file.hosted_url };
    switch (kindOf(file)) {
      case 'pdf': {
        const pages = await pdfText(file.bytes).catch((err: Error) => {
          throw new KnowledgeBaseFileError(file.name, err.message);
        });
        out.push({ ...base, text: pages.pages.join('\n') });
        break;
      }
      case 'html':
        out.push({ ...base, text: parsePage(base.source_id, file.bytes).text, html: utf8(file.bytes) });
        break;
      case 'csv': {
        const text = utf8(file.bytes);
        const header = text.split(/\r?\n/, 1)[0] ?? '';
        const delimiter = (header.match(/;/g) ?? []).length > (header.match(/,/g) ?? []).length ? ';' : ',';
        let rows: Array<Record<string, string>>;
        try {
          rows = parseCsv(text, { columns: true, delimiter, skip_empty_lines: true, trim: true, relax_column_count: true, bom: true }) as Array<
            Record<string, string>
          >;
        } catch (err) {
          throw new KnowledgeBaseFileError(file.name, `not a readable CSV (${(err as Error).message})`);
        }
        out.push({ ...base, text, rows });
        break;
      }
      case 'text':
        out.push({ ...base, text: utf8(file.bytes) });
        break;
      default:
        throw new KnowledgeBaseFileError(file.name, `unsupported type ${file.content_type || 'unknown'} (PDF, HTML, CSV or text)`);
    }
  }
  return out;
}
