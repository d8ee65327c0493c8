/**
 * WACZ 1.x (Web Archive Collection Zipped, webrecorder's specification): a ZIP whose
 * `datapackage.json` (Frictionless Data Package) lists every file with its `sha256:` hash and
 * size, and whose `archive/` folder holds the WARC files. Reading verifies every listed hash while
 * copying the WARC files out (one pass over the ZIP, entries streamed).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import * as unzipper from 'unzipper';

/** A WACZ that is not valid: no datapackage.json, a listed file missing, or a hash/size mismatch. */
export class WaczError extends Error {}

/** One `resources[]` entry of datapackage.json (WACZ 1.1.1 §"datapackage.json"). */
interface WaczResource {
  path: string;
  hash?: string;
  bytes?: number;
}

/** The resources of a datapackage.json text. @throws WaczError when it is not JSON with a resources list */
function resourcesOf(text: string): WaczResource[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new WaczError('datapackage.json is not valid JSON');
  }
  const list = (data as { resources?: unknown }).resources;
  if (!Array.isArray(list)) throw new WaczError('datapackage.json has no resources list');
  return list.filter((r): r is WaczResource => typeof r === 'object' && r !== null && typeof (r as WaczResource).path === 'string');
}

/** Whether a path inside the ZIP is a WARC file of the archive folder. */
function isArchiveWarc(entryPath: string): boolean {
  return /^archive\/[^/]+\.warc(\.gz)?$/i.test(entryPath);
}

/**
 * Verifies a WACZ file against its datapackage.json and copies its WARC files (`archive/*.warc`,
 * `archive/*.warc.gz`) into `destDir`.
 * @returns the absolute paths of the copied WARC files, in datapackage order
 * @throws WaczError when the ZIP has no datapackage.json, a listed resource is missing, its SHA-256
 *   or size differs from the listing, or it holds no WARC file; Error when the file is no ZIP
 */
export async function extractWacz(file: string, destDir: string): Promise<string[]> {
  let directory: unzipper.CentralDirectory;
  try {
    directory = await unzipper.Open.file(file);
  } catch (err) {
    throw new WaczError(`not a readable ZIP file: ${err instanceof Error ? err.message : String(err)}`);
  }
  const entries = new Map(directory.files.filter((f) => f.type === 'File').map((f) => [f.path, f]));
  const pkg = entries.get('datapackage.json');
  if (!pkg) throw new WaczError('datapackage.json is missing');
  const chunks: Buffer[] = [];
  for await (const chunk of pkg.stream()) chunks.push(chunk as Buffer);
  const resources = resourcesOf(Buffer.concat(chunks).toString('utf8'));
  await fs.promises.mkdir(destDir, { recursive: true });
  const warcs: string[] = [];
  for (const resource of resources) {
    const entry = entries.get(resource.path);
    if (!entry) throw new WaczError(`datapackage.json lists ${resource.path}, which the WACZ does not contain`);
    const hash = crypto.createHash('sha256');
    let bytes = 0;
    const target = isArchiveWarc(resource.path) ? path.join(destDir, path.basename(resource.path)) : null;
    const out = target ? fs.createWriteStream(target) : null;
    await pipeline(
      entry.stream(),
      new Writable({
        write(chunk: Buffer, _enc, done) {
          hash.update(chunk);
          bytes += chunk.length;
          if (out && !out.write(chunk)) out.once('drain', () => done());
          else done();
        },
        final(done) {
          if (out) out.end(done);
          else done();
        },
      }),
    );
    const digest = `sha256:${hash.digest('hex')}`;
    if (resource.hash && resource.hash.toLowerCase() !== digest) {
      throw new WaczError(`${resource.path}: SHA-256 differs from datapackage.json (listed ${resource.hash}, content ${digest})`);
    }
    if (typeof resource.bytes === 'number' && resource.bytes !== bytes) {
      throw new WaczError(`${resource.path}: ${bytes} bytes, datapackage.json lists ${resource.bytes}`);
    }
    if (target) warcs.push(target);
  }
  if (!warcs.length) throw new WaczError('the WACZ lists no WARC file under archive/');
  return warcs;
}
