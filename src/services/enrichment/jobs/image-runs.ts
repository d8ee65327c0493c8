/**
 * Image runs (the service side of `service_image_run` / `_status` / `_list`): one image
 * processing job on the organization's hosted media (`host_media`, src/services/enrichment/rows/artifacts.ts).
 *
 * - Input images must be hosted media of the organization (`…/api/public/media/{sha256}.{ext}`):
 *   the service never fetches an arbitrary URL for a run, and one organization cannot read another's.
 * - `upscale` (fit into `size`, default twice the size, at most 8192 px a side) and `process` (the
 *   enrich request's `image_processing`: resize, square, background, format) run at once with
 *   sharp; the result is hosted like any media and its URL recorded.
 * - `generate`, `edit`, `inpaint`, `bg_remove` and `relight` need an image model, which this service
 *   does not have: such a run is recorded as `failed` with that reason, so an agent sees why.
 * Runs are short (one image, a fraction of a second), so they run in the request, not as a workflow.
 */
import type { Knex } from 'knex';
import sharp from 'sharp';
import { ValidationError } from '../../../lib/errors';
import { newId } from '../../../lib/ids';
import { Catalog } from '../../../models/catalog';
import { HostedMedia } from '../../../models/hosted-media';
import { ImageRun } from '../../../models/image-run';
import type { ImageRunInput, ImageRunListInput } from '../../../schemas/image-runs';
import { loadOwned } from '../../access/ownership';
import type { Scope } from '../../access/scope';
import { bufferOf } from '../../../lib/blob-store';
import { EnrichmentStorage, hostBytes, readMedia } from '../rows/artifacts';
import { processImage } from '../rows/image-processing';

/** What a run needs: the database and where media are stored. */
export interface ImageRunDeps {
  knex: Knex;
  storage: EnrichmentStorage;
}

/** Tools that need an image model provider (none is configured on this service). */
const GENERATIVE = new Set(['generate', 'edit', 'inpaint', 'bg_remove', 'relight']);

/** Largest side an upscale may produce (px). */
const MAX_SIDE = 8192;

/** The hosted file name (`{sha256}.{ext}`) of a media URL, or null. */
function hostedFile(url: string): string | null {
  const m = /\/api\/public\/media\/([0-9a-f]{64}\.[a-z0-9]{2,5})(?:[?#].*)?$/i.exec(url.trim());
  return m ? m[1].toLowerCase() : null;
}

/**
 * The bytes and content type of a hosted media URL of the organization.
 * @throws ValidationError (422 at `loc`) when the URL is not hosted media of the organization
 */
async function hostedImage(deps: ImageRunDeps, scope: Scope, url: string, loc: string): Promise<{ bytes: Buffer; contentType: string }> {
  const file = hostedFile(url);
  const owned = file ? await HostedMedia.query(deps.knex).findOne({ organization_id: scope.organizationId, sha256: file.split('.')[0] }) : undefined;
  if (!file || !owned) throw ValidationError.at(['body', loc], 'must be a hosted media URL of this organization (…/api/public/media/{sha256}.{ext})');
  const media = await readMedia(deps.knex, deps.storage, file);
  if (!/^image\//.test(media.content_type)) throw ValidationError.at(['body', loc], 'is not an image');
  return { bytes: await bufferOf(media.body), contentType: media.content_type };
}

/** Checks the fields each tool needs (docs/tool-server-design.md "Image tools"). @throws ValidationError */
function checkRequest(input: ImageRunInput): void {
  if (input.tool !== 'generate' && !input.image_url) throw ValidationError.at(['body', 'image_url'], `is required for ${input.tool}`);
  if (input.tool === 'inpaint' && !input.mask_url) throw ValidationError.at(['body', 'mask_url'], 'is required for inpaint');
  if (['generate', 'edit', 'inpaint'].includes(input.tool) && !input.prompt?.trim())
    throw ValidationError.at(['body', 'prompt'], `is required for ${input.tool}`);
}

/** Upscales to fit `size` (`WxH`), or to twice the size, never past {@link MAX_SIDE}. */
async function upscale(bytes: Buffer, contentType: string, size: string | undefined): Promise<{ bytes: Buffer; contentType: string }> {
  const meta = await sharp(bytes).rotate().metadata();
  const w = meta.autoOrient?.width ?? meta.width ?? 0;
  const h = meta.autoOrient?.height ?? meta.height ?? 0;
  if (!w || !h) throw new Error('not a decodable image');
  const [bw, bh] = size ? size.split('x').map(Number) : [2 * w, 2 * h];
  const scale = Math.min(bw / w, bh / h, MAX_SIDE / Math.max(w, h));
  const format = /png|webp|avif|jpeg/.exec(contentType)?.[0] ?? 'png';
  const out = await sharp(bytes)
    .rotate()
    .resize(Math.max(1, Math.round(w * scale)), Math.max(1, Math.round(h * scale)), { kernel: 'lanczos3', fit: 'fill' })
    .toFormat(format as keyof sharp.FormatEnum)
    .toBuffer();
  return { bytes: out, contentType: `image/${format}` };
}

/**
 * Runs one image tool for the organization and records it.
 * @returns the run, `completed` with its hosted result URLs or `failed` with the reason
 * @throws ValidationError (422) for missing fields or an image that is not the organization's hosted media; NotFoundError/ForbiddenError for `catalog_id`
 */
export async function runImageTool(deps: ImageRunDeps, scope: Scope, input: ImageRunInput): Promise<ImageRun> {
  checkRequest(input);
  if (input.catalog_id) await loadOwned(deps.knex, Catalog, input.catalog_id, scope, 'Catalog not found');
  const image = input.image_url ? await hostedImage(deps, scope, input.image_url, 'image_url') : null;
  if (input.mask_url) await hostedImage(deps, scope, input.mask_url, 'mask_url');
  const stored: Record<string, unknown> = {};
  for (const k of ['image_url', 'mask_url', 'prompt', 'prompt_image_urls', 'provider', 'quality', 'size', 'processing'] as const)
    if (input[k] !== undefined) stored[k] = input[k];
  const run = await ImageRun.query(deps.knex).insertAndFetch({
    id: newId(),
    organization_id: scope.organizationId,
    tool: input.tool,
    status: 'processing',
    input: stored,
    num_options: input.num_options ?? 1,
    catalog_id: input.catalog_id ?? null,
    item_id: input.item_id ?? null,
    result_urls: [],
    error: null,
  });
  let patch: Partial<ImageRun>;
  if (GENERATIVE.has(input.tool) || !image) {
    patch = { status: 'failed', error: `${input.tool} needs an image model provider, and none is configured on this service (upscale and process run here)` };
  } else {
    try {
      const out =
        input.tool === 'upscale'
          ? await upscale(image.bytes, image.contentType, input.size)
          : await processImage(image.bytes, image.contentType, input.processing ?? {});
      const url = await hostBytes(deps.knex, deps.storage, scope.organizationId, out.bytes, out.contentType, `image-run:${run.id}`);
      patch = url ? { status: 'completed', result_urls: [url] } : { status: 'failed', error: 'the result could not be hosted' };
    } catch (err) {
      patch = { status: 'failed', error: `image not processed: ${(err as Error).message}` };
    }
  }
  return ImageRun.query(deps.knex).patchAndFetchById(run.id, { ...patch, updated_at: new Date(), completed_at: new Date() });
}

/** One run of the organization. @throws NotFoundError (404) / ForbiddenError (403) */
export function getImageRun(knex: Knex, scope: Scope, id: string): Promise<ImageRun> {
  return loadOwned(knex, ImageRun, id, scope, 'Image run not found');
}

/** The organization's runs, newest first, filtered. @returns the page and the total */
export async function listImageRuns(knex: Knex, scope: Scope, q: ImageRunListInput): Promise<{ runs: ImageRun[]; total: number }> {
  const base = ImageRun.query(knex).where('organization_id', scope.organizationId);
  for (const k of ['status', 'tool', 'catalog_id', 'item_id'] as const) if (q[k] !== undefined) base.where(k, q[k]);
  const [runs, count] = await Promise.all([
    base
      .clone()
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(q.limit ?? 20)
      .offset(q.offset ?? 0),
    base.clone().resultSize(),
  ]);
  return { runs, total: count };
}
