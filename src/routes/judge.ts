import type { ResolvedAppDeps } from '../deps';
import { presentJudgeResult } from '../presenters/judge';
import { judgeBody, judgeResponse } from '../schemas/judge';
import { judgeLlm } from '../services/enrichment/judge/judge-llm';
import { judge } from '../services/enrichment/judge/judge-request';
import { defineRoute, RouteDef } from './registry';

/**
 * `POST /public/judge` (docs/api-enrichment.md "Judging") in every body shape existing clients send: by the configured model, cross-checked by the post-enrichment audit's rules, or by the
 * rules alone.
 */
export function judgeRoutes(deps: ResolvedAppDeps): RouteDef[] {
  const llm = judgeLlm(deps.config.llm);
  return [
    defineRoute({
      method: 'post',
      path: '/public/judge',
      tags: ['enrichment'],
      summary: 'Judge rows (pass / review_required / fail) with reasons, field issues and suggested updates',
      body: judgeBody,
      response: judgeResponse,
      handler: async ({ scope, body }) => presentJudgeResult(await judge(deps.knex, scope, body, llm)),
    }),
  ];
}
