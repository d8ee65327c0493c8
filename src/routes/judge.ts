import type { ResolvedAppDeps } from '../deps';
import { presentJudgeResult } from '../presenters/judge';
import { judgeBody, judgeResponse } from '../schemas/judge';
import { judge } from '../services/enrichment/judge-request';
import { defineRoute, RouteDef } from './registry';

/** `POST /public/judge` (decisions.md §4 G20) in every body shape existing clients send (issue 26 §6). */
export function judgeRoutes(deps: ResolvedAppDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/public/judge',
      tags: ['enrichment'],
      summary: 'Judge rows (pass / review_required / fail) with reasons, field issues and suggested updates',
      body: judgeBody,
      response: judgeResponse,
      handler: async ({ scope, body }) => presentJudgeResult(await judge(deps.knex, scope, body)),
    }),
  ];
}
