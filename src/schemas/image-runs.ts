/**
 * Image runs (image run / status / list on the service's media hosting and
 * `image_processing`; docs/tool-server-design.md "Image tools" for the request fields the upstream tool sends).
 */
import { Static, Type } from '@sinclair/typebox';
import { Nullable, POSITION_MAX, StringEnum, withDefault } from './common';

/** Tools of a run (docs/tool-server-design.md "Image tools") plus `process` (the enrich request's `image_processing`). */
export const IMAGE_TOOLS = ['generate', 'edit', 'inpaint', 'bg_remove', 'relight', 'upscale', 'process'] as const;
/** Statuses of a run. */
export const IMAGE_RUN_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;

const hex = '^(#[0-9A-Fa-f]{3}|#[0-9A-Fa-f]{4}|#[0-9A-Fa-f]{6}|#[0-9A-Fa-f]{8}|[A-Za-z]{3,30})$';

/** `POST /public/image-runs`. */
export const ImageRunBody = Type.Object(
  {
    tool: StringEnum(IMAGE_TOOLS, { description: 'upscale and process run on the service (sharp); the generative tools need an image model provider' }),
    image_url: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: 'A hosted media URL of the organization (`…/api/public/media/{sha256}.{ext}`); needed by every tool but generate',
      }),
    ),
    mask_url: Type.Optional(Type.String({ maxLength: 2000, description: 'Hosted mask (inpaint)' })),
    prompt: Type.Optional(Type.String({ maxLength: 4000, description: 'Needed by generate, edit and inpaint' })),
    prompt_image_urls: Type.Optional(Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 8 })),
    provider: Type.Optional(Type.String({ maxLength: 100 })),
    quality: Type.Optional(StringEnum(['high', 'low'] as const)),
    size: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,4}x[1-9][0-9]{0,4}$', description: '`WxH` (px): the box upscale fits the image into' })),
    num_options: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 4 }), 1)),
    catalog_id: Type.Optional(Type.String({ format: 'uuid' })),
    item_id: Type.Optional(Type.String({ maxLength: 200 })),
    processing: Type.Optional(
      Type.Object(
        {
          make_square: Type.Optional(Type.Boolean()),
          background_color: Type.Optional(Type.String({ pattern: hex })),
          min_side_px: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000 })),
          max_side_px: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000 })),
          output_format: Type.Optional(StringEnum(['jpeg', 'png', 'webp', 'avif'] as const)),
          quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        },
        { additionalProperties: false, description: 'Options of `process` (as the enrich request’s image_processing)' },
      ),
    ),
  },
  { additionalProperties: false },
);
/** {@link ImageRunBody} as validated. */
export type ImageRunInput = Static<typeof ImageRunBody>;

/** `GET /public/image-runs/{run_id}` path. */
export const ImageRunParams = Type.Object({ run_id: Type.String({ format: 'uuid' }) });

/** `GET /public/image-runs` query. */
export const ImageRunListQuery = Type.Object({
  status: Type.Optional(StringEnum(IMAGE_RUN_STATUSES)),
  tool: Type.Optional(StringEnum(IMAGE_TOOLS)),
  catalog_id: Type.Optional(Type.String({ format: 'uuid' })),
  item_id: Type.Optional(Type.String({ maxLength: 200 })),
  limit: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 100 }), 20)),
  offset: Type.Optional(withDefault(Type.Integer({ minimum: 0, maximum: POSITION_MAX }), 0)),
});
/** {@link ImageRunListQuery} as validated. */
export type ImageRunListInput = Static<typeof ImageRunListQuery>;

const DateTime = Type.String({ format: 'date-time' });

/** A run as answered. */
export const ImageRunResponse = Type.Object({
  run_id: Type.String(),
  tool: StringEnum(IMAGE_TOOLS),
  status: StringEnum(IMAGE_RUN_STATUSES),
  input: Type.Record(Type.String(), Type.Unknown()),
  num_options: Type.Integer(),
  catalog_id: Nullable(Type.String()),
  item_id: Nullable(Type.String()),
  result_urls: Type.Array(Type.String(), { description: 'Hosted media URLs of the results' }),
  error: Nullable(Type.String()),
  created_at: DateTime,
  completed_at: Nullable(DateTime),
});

/** The list answer. */
export const ImageRunListResponse = Type.Object({ runs: Type.Array(ImageRunResponse), total: Type.Integer() });
