import { iso } from '../lib/time';
import type { ImageRun } from '../models/image-run';

/** An image run as the API answers it (src/schemas/image-runs.ts `ImageRunResponse`). */
export function presentImageRun(r: ImageRun): Record<string, unknown> {
  return {
    run_id: r.id,
    tool: r.tool,
    status: r.status,
    input: r.input,
    num_options: r.num_options,
    catalog_id: r.catalog_id,
    item_id: r.item_id,
    result_urls: r.result_urls,
    error: r.error,
    created_at: iso(r.created_at),
    completed_at: r.completed_at ? iso(r.completed_at) : null,
  };
}
