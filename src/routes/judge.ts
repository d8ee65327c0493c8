import type { ResolvedAppDeps } from '../deps';
import { presentJudgeResult } from '../presenters/judge';
import { judgeBody, judgeResponse } from '../schemas/judge';
import { judgeRows } from '../services/enrichment/judge';
import { defineRoute, RouteDef } from './registry';

/** `POST /public/judge` (decisions.md §4 G20), on the post-enrichment audit's rules. */
export function judgeRoutes(deps: ResolvedAppDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/public/judge',
      tags: ['enrichment'],
      summary: 'Judge rows (pass / review_required / fail) with reasons, field issues and suggested updates',
      body: judgeBody,
      response: judgeResponse,
      handler: async ({ scope, body }) => presentJudgeResult(await judgeRows(deps.knex, scope, body)),
    }),
  ];
}
