import fs from 'node:fs';
import path from 'node:path';
import multer from '@koa/multer';
import type { Context } from 'koa';
import { AppError, errorFields, PayloadTooLargeError, ValidationError } from '../lib/errors';
import { newId } from '../lib/ids';

/**
 * Multipart uploads of `POST /public/enrich` (docs/api-enrichment.md "Enrichment jobs"): a `request_json`
 * field, exactly one `items_file`, optional `knowledge_base_files` and an optional
 * `knowledge_base_metadata_json` text field (existing clients send it). Files stream to disk under
 * `<dataDir>/uploads` (never buffered in memory); the caller parses and then deletes them.
 */

/** Size limits of one multipart enrich request (docs/api-reference.md "Limits" leaves `items_file`'s open). */
export interface UploadLimits {
  /** Largest `items_file` (and knowledge-base file), bytes; larger → 413. */
  fileBytes: number;
  /** Largest `request_json` field, bytes; larger → 413. */
  requestJsonBytes: number;
  /** Most knowledge-base files per request; more → 422. */
  knowledgeBaseFiles: number;
}

/** Default limits: 512 MiB per file (millions of small items), 1 MiB of request_json, 20 KB files. */
export const DEFAULT_UPLOAD_LIMITS: UploadLimits = { fileBytes: 512 * 1024 * 1024, requestJsonBytes: 1024 * 1024, knowledgeBaseFiles: 20 };

/** One file on disk, as multer describes it. */
export interface UploadedFile {
  path: string;
  originalname: string;
  mimetype: string;
  size: number;
}

/** The parsed multipart request. */
export interface EnrichUpload {
  requestJson: string | undefined;
  /** The `knowledge_base_metadata_json` text field (existing clients send the metadata beside request_json). */
  knowledgeBaseMetadataJson: string | undefined;
  itemsFile: UploadedFile;
  knowledgeBaseFiles: UploadedFile[];
  /** Deletes every uploaded file (call when done, also on failure). */
  cleanup(): Promise<void>;
}

/** The text fields of the form: the request, and the knowledge-base metadata existing clients send as its own field. */
const TEXT_FIELDS: ReadonlySet<string> = new Set(['request_json', 'knowledge_base_metadata_json']);

async function removeAll(files: UploadedFile[]): Promise<void> {
  await Promise.all(files.map((f) => fs.promises.rm(f.path, { force: true })));
}

/** Maps multer/busboy errors to 413 (over a limit) or 422 (malformed form). */
function mapUploadError(err: unknown, limits: UploadLimits): AppError {
  const e = errorFields(err);
  switch (e.code) {
    case 'LIMIT_FILE_SIZE':
      return new PayloadTooLargeError(`Uploaded file too large (limit ${limits.fileBytes} bytes)`);
    case 'LIMIT_FIELD_VALUE':
      return new PayloadTooLargeError(`request_json too large (limit ${limits.requestJsonBytes} bytes)`);
    case 'LIMIT_UNEXPECTED_FILE':
      return ValidationError.at(
        ['body', String(e.field ?? 'file')],
        'Unexpected file field: only items_file and knowledge_base_files are accepted',
        'extra_forbidden',
      );
    case 'LIMIT_FILE_COUNT':
      return ValidationError.at(['body', 'knowledge_base_files'], `At most ${limits.knowledgeBaseFiles} knowledge_base_files`, 'value_error');
    default:
      return ValidationError.at(['body'], `Malformed multipart body: ${e.message ?? 'unreadable'}`, 'multipart_invalid');
  }
}

/**
 * Reads a multipart enrich request from `ctx`, streaming its files to `<dataDir>/uploads`.
 * @throws PayloadTooLargeError (413) for a file or field over `limits`; ValidationError (422)
 *   for a malformed form, unknown file fields, a missing or repeated `items_file`, or a
 *   repeated `request_json` (uploaded files are removed before throwing)
 */
export async function readEnrichUpload(ctx: Context, dataDir: string, limits: UploadLimits = DEFAULT_UPLOAD_LIMITS): Promise<EnrichUpload> {
  const dir = path.join(dataDir, 'uploads');
  await fs.promises.mkdir(dir, { recursive: true });
  const upload = multer({
    storage: multer.diskStorage({ destination: dir, filename: (_req, _file, cb) => cb(null, `${newId()}.upload`) }),
    limits: { fileSize: limits.fileBytes, fieldSize: limits.requestJsonBytes, fields: 20, files: limits.knowledgeBaseFiles + 2 },
  });
  try {
    await upload.fields([{ name: 'items_file' }, { name: 'knowledge_base_files' }])(ctx, async () => {});
  } catch (err) {
    throw mapUploadError(err, limits);
  }
  // `fields()` stores the files by field name (the array form belongs to `array()` / `any()`).
  const files: Record<string, UploadedFile[]> = ctx.files && !Array.isArray(ctx.files) ? ctx.files : {};
  const all = Object.values(files).flat();
  const items = files.items_file ?? [];
  const kb = files.knowledge_base_files ?? [];
  const rawBody = ctx.request.body; // multer's text fields
  const body: Record<string, unknown> = typeof rawBody === 'object' && rawBody !== null ? { ...rawBody } : {};
  const problems: Array<{ loc: Array<string | number>; msg: string; type: string }> = [];
  if (items.length === 0) problems.push({ loc: ['body', 'items_file'], msg: 'Field required: exactly one items_file', type: 'missing' });
  if (items.length > 1) problems.push({ loc: ['body', 'items_file'], msg: `Exactly one items_file is accepted, got ${items.length}`, type: 'value_error' });
  for (const key of Object.keys(body)) {
    if (!TEXT_FIELDS.has(key))
      problems.push({ loc: ['body', key], msg: 'Extra inputs are not permitted: send request fields inside request_json', type: 'extra_forbidden' });
  }
  for (const key of TEXT_FIELDS) if (Array.isArray(body[key])) problems.push({ loc: ['body', key], msg: `${key} given more than once`, type: 'value_error' });
  if (kb.length > limits.knowledgeBaseFiles)
    problems.push({ loc: ['body', 'knowledge_base_files'], msg: `At most ${limits.knowledgeBaseFiles} knowledge_base_files`, type: 'value_error' });
  if (problems.length) {
    await removeAll(all);
    throw new ValidationError(problems);
  }
  return {
    requestJson: typeof body.request_json === 'string' ? body.request_json : undefined,
    knowledgeBaseMetadataJson: typeof body.knowledge_base_metadata_json === 'string' ? body.knowledge_base_metadata_json : undefined,
    itemsFile: items[0],
    knowledgeBaseFiles: kb,
    cleanup: () => removeAll(all),
  };
}
