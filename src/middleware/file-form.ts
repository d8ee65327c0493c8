import fs from 'node:fs';
import path from 'node:path';
import multer from '@koa/multer';
import type { Context } from 'koa';
import { errorFields, PayloadTooLargeError, ValidationError } from '../lib/errors';
import { newId } from '../lib/ids';
import type { UploadedFile } from './upload';

/**
 * A `multipart/form-data` request with one file and a few text fields (`POST /public/infer-schema`
 * with `file`, `POST …/items/import`): the file streams to `<dataDir>/uploads` (never buffered in
 * memory), the text fields are returned as strings for the route's schema to validate.
 */

/** The parsed form. */
export interface FileForm {
  file: UploadedFile;
  /** Text fields by name (each given at most once). */
  fields: Record<string, string>;
  /** Deletes the uploaded file (call when done, also on failure). */
  cleanup(): Promise<void>;
}

/**
 * Reads a form with exactly one file in `fileField` and only the text fields `allowed`.
 * @param maxFileBytes largest file; `maxFieldBytes` largest text field
 * @throws PayloadTooLargeError (413) over a limit; ValidationError (422) for a malformed form,
 *   a missing or repeated file, another file field, an unknown or repeated text field (the
 *   uploaded file is removed before throwing)
 */
export async function readFileForm(
  ctx: Context,
  dataDir: string,
  fileField: string,
  allowed: readonly string[],
  maxFileBytes: number,
  maxFieldBytes = 1024 * 1024,
): Promise<FileForm> {
  const dir = path.join(dataDir, 'uploads');
  await fs.promises.mkdir(dir, { recursive: true });
  const upload = multer({
    storage: multer.diskStorage({ destination: dir, filename: (_req, _file, cb) => cb(null, `${newId()}.upload`) }),
    limits: { fileSize: maxFileBytes, fieldSize: maxFieldBytes, fields: allowed.length + 5, files: 2 },
  });
  try {
    await upload.fields([{ name: fileField, maxCount: 2 }])(ctx, async () => {});
  } catch (err) {
    const e = errorFields(err);
    if (e.code === 'LIMIT_FILE_SIZE') throw new PayloadTooLargeError(`Uploaded file too large (limit ${maxFileBytes} bytes)`);
    if (e.code === 'LIMIT_FIELD_VALUE') throw new PayloadTooLargeError(`A form field is too large (limit ${maxFieldBytes} bytes)`);
    if (e.code === 'LIMIT_UNEXPECTED_FILE')
      throw ValidationError.at(['body', String(e.field ?? 'file')], `Unexpected file field: only ${fileField} is accepted`, 'extra_forbidden');
    throw ValidationError.at(['body'], `Malformed multipart body: ${e.message ?? 'unreadable'}`, 'multipart_invalid');
  }
  const files: Record<string, UploadedFile[]> = ctx.files && !Array.isArray(ctx.files) ? ctx.files : {};
  const all = Object.values(files).flat();
  const cleanup = () => Promise.all(all.map((f) => fs.promises.rm(f.path, { force: true }))).then(() => undefined);
  const given = files[fileField] ?? [];
  const rawBody = ctx.request.body;
  const body: Record<string, unknown> = typeof rawBody === 'object' && rawBody !== null ? { ...rawBody } : {};
  const problems: Array<{ loc: Array<string | number>; msg: string; type: string }> = [];
  if (given.length === 0) problems.push({ loc: ['body', fileField], msg: `Field required: one ${fileField}`, type: 'missing' });
  if (given.length > 1) problems.push({ loc: ['body', fileField], msg: `Exactly one ${fileField} is accepted, got ${given.length}`, type: 'value_error' });
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    if (!allowed.includes(key)) problems.push({ loc: ['body', key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
    else if (typeof value !== 'string') problems.push({ loc: ['body', key], msg: `${key} given more than once`, type: 'value_error' });
    else fields[key] = value;
  }
  if (problems.length) {
    await cleanup();
    throw new ValidationError(problems);
  }
  return { file: given[0], fields, cleanup };
}
