/**
 * The render activity: renders in headless Chromium the pages a row asked for
 * (src/services/fetching/render-store.ts) and stores each DOM and screenshot. It runs on its
 * own task queue (`<task queue>-render`, workflows/definitions.ts RENDER_QUEUE_SUFFIX) served by a
 * worker whose activity slots are RENDER_CONCURRENCY (temporal/worker.ts createRenderWorker), so
 * browsers never outnumber that per worker. Thin adapter over src/enrichment/providers and src/services/fetching.
 */
import type { Knex } from 'knex';
import type { HostPoliteness } from '../src/enrichment/providers/fetch-state';
import { hasProductData } from '../src/enrichment/providers/product-signals';
import type { Renderer } from '../src/enrichment/providers/renderer';
import { logger } from '../src/lib/logger';
import { pendingRenders, saveRender } from '../src/services/fetching/render-store';

/** What the render activity needs: the database, one renderer (one browser) and the hosts' politeness. */
export interface RenderActivityDeps {
  knex: Knex;
  renderer: Renderer;
  politeness: HostPoliteness;
}

/** The activity functions of the render worker. */
export interface RenderActivities {
  /**
   * Renders every page row `rowIndex` of job `jobId` asked for, one after the other (each main
   * document takes the host's slot and spacing), storing the DOM or the error. Idempotent: a
   * page already rendered is not asked for again.
   * @returns how many pages were rendered and how many failed
   */
  renderRowPages(jobId: string, rowIndex: number): Promise<{ rendered: number; failed: number }>;
}

/** Builds the render activity over a renderer (see {@link RenderActivities}). */
export function createRenderActivities(deps: RenderActivityDeps): RenderActivities {
  return {
    async renderRowPages(jobId, rowIndex) {
      let rendered = 0;
      let failed = 0;
      for (const url of await pendingRenders(deps.knex, jobId, rowIndex)) {
        const grant = await deps.politeness.acquire(new URL(url).host);
        try {
          const page = await deps.renderer.render(url);
          await saveRender(deps.knex, url, { page, productData: hasProductData(page.html) });
          rendered++;
        } catch (err) {
          await saveRender(deps.knex, url, { error: (err as Error).message });
          logger.warn({ job_id: jobId, row_index: rowIndex, url, err: (err as Error).message }, 'render failed');
          failed++;
        } finally {
          await grant.release();
        }
      }
      return { rendered, failed };
    },
  };
}
