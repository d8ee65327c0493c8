import type { CatalogImport } from '../models/catalog-import';
import type { ImportLine } from '../services/sheets/import';

/**
 * Wire JSON of a spreadsheet import. `lines_url` (the per-line report) is absolute,
 * with `publicUrl` as its base, as `review_url` is (docs/api-review.md "Activities").
 */
export function presentImport(i: CatalogImport, publicUrl: string): Record<string, unknown> {
  return {
    import_id: i.id,
    catalog_id: i.catalog_id,
    status: i.status,
    file_name: i.file_name,
    total_lines: i.total_lines,
    processed_lines: i.created + i.updated + i.unchanged + i.failed,
    created: i.created,
    updated: i.updated,
    unchanged: i.unchanged,
    failed: i.failed,
    error: i.error,
    dry_run: i.dry_run,
    mode: i.mode,
    created_at: new Date(i.created_at).toISOString(),
    completed_at: i.completed_at ? new Date(i.completed_at).toISOString() : null,
    lines_url: `${publicUrl}/api/public/catalogs/${i.catalog_id}/items/import/${i.id}/lines`,
  };
}

/** One line of the per-line report: `{line, status, errors, item_id}`. */
export function presentImportLine(l: ImportLine): Record<string, unknown> {
  return { line: l.line, status: l.status, errors: l.errors ?? [], item_id: l.item_id };
}

/** The per-line report as CSV (`line,status,item_id,errors`; errors as JSON), header included when `header`. */
export function importLinesCsv(lines: ImportLine[], header: boolean): string {
  const q = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const rows = lines.map((l) => [String(l.line), l.status, l.item_id ?? '', l.errors?.length ? JSON.stringify(l.errors) : ''].map(q).join(','));
  return (header ? 'line,status,item_id,errors\n' : '') + rows.map((r) => `${r}\n`).join('');
}
