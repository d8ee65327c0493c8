import { Type } from '@sinclair/typebox';
import { StringEnum, withDefault } from './common';

/** JSON Schemas of the spreadsheet routes of catalogs (export and import). */

/** `GET …/items/export` query. */
export const exportQuery = Type.Object(
  {
    format: Type.Optional(withDefault(StringEnum(['csv', 'xlsx'] as const), 'csv')),
    bom: Type.Optional(
      withDefault(
        Type.Boolean({
          description: 'CSV only: start with a UTF-8 byte-order mark (for spreadsheet programs that need one to read UTF-8); the import reads either',
        }),
        false,
      ),
    ),
  },
  { additionalProperties: false },
);

/** The text fields of the `POST …/items/import` form (validated with query coercion: form fields are strings). */
export const importFields = Type.Object(
  {
    mapping: Type.Optional(Type.String({ maxLength: 100000, description: 'JSON object column → field; unnamed columns keep their name, "" skips a column' })),
    dry_run: Type.Optional(withDefault(Type.Boolean({ description: 'Report per line what the import would do; write nothing' }), false)),
    mode: Type.Optional(
      withDefault(StringEnum(['upsert', 'create', 'update'] as const, { description: 'create: new items only; update: existing items only' }), 'upsert'),
    ),
  },
  { additionalProperties: false },
);

/** Multipart form of `POST …/items/import` (documentation). */
export const importMultipart = Type.Object({
  file: Type.String({ format: 'binary', description: 'CSV, XLSX or legacy XLS; the header row names the columns' }),
  mapping: Type.Optional(Type.String({ description: 'JSON object column → field (default: each column to the field of its name)' })),
  dry_run: Type.Optional(Type.Boolean({ description: 'true: the line statuses say what the import would do; nothing is written' })),
  mode: Type.Optional(StringEnum(['upsert', 'create', 'update'] as const, { description: 'Which lines may be written (default upsert)' })),
});

/** `{catalog_id, import_id}` path parameters. */
export const importParams = Type.Object({ catalog_id: Type.String(), import_id: Type.String() });

/** `GET …/items/import/{import_id}/lines` query. */
export const importLinesQuery = Type.Object(
  {
    format: Type.Optional(withDefault(StringEnum(['json', 'csv'] as const), 'json')),
    after_line: Type.Optional(withDefault(Type.Integer({ minimum: 0, maximum: 2147483647 }), 0)),
    limit: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 10000 }), 1000)),
  },
  { additionalProperties: false },
);

/** An import as returned. */
export const importResponse = Type.Object({
  import_id: Type.String(),
  catalog_id: Type.String(),
  status: Type.String({ enum: ['running', 'completed', 'failed', 'cancelled'] }),
  file_name: Type.String(),
  total_lines: Type.Integer(),
  processed_lines: Type.Integer(),
  created: Type.Integer(),
  updated: Type.Integer(),
  unchanged: Type.Integer({ description: 'Lines equal to their item: nothing written, no new version' }),
  failed: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  dry_run: Type.Boolean({ description: 'A dry run: nothing was written; the line statuses say what the import would do' }),
  mode: Type.String({ enum: ['upsert', 'create', 'update'] }),
  created_at: Type.String(),
  completed_at: Type.Union([Type.String(), Type.Null()]),
  lines_url: Type.String(),
});
