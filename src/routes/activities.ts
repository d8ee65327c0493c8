import type { AppDeps } from '../deps';
import { Type } from '@sinclair/typebox';
import { presentActivity, presentStagedChange } from '../presenters/enrichment-job';
import { POSITION_MAX, StringEnum, withDefault } from '../schemas/common';
import { getActivity, listStagedChanges, STAGED_STATUSES, stagedChangesSummary } from '../services/enrichment/staging';
import { defineRoute, RouteDef } from './registry';

const activityParams = Type.Object({ activity_id: Type.String({ description: 'Activity id (an enrichment job id is one, decisions.md §4)' }) });

const stagedChangesQuery = Type.Object({
  page: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: POSITION_MAX }), 1)),
  page_size: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 1000 }), 50)),
  status: Type.Optional(StringEnum(STAGED_STATUSES)),
  search_query: Type.Optional(Type.String({ maxLength: 500, description: 'Case-insensitive substring of the before/after data' })),
});

/**
 * Read side of review activities that existing clients call without the `/public` prefix
 * (decisions.md §1 and §5, G16), so an enrichment job's staged changes are reviewable.
 */
export function activityRoutes(deps: AppDeps): RouteDef[] {
  const tags = ['activities'];
  return [
    defineRoute({
      method: 'get',
      path: '/activities/:activity_id',
      tags,
      summary: 'An activity with its staged-change count',
      params: activityParams,
      handler: async ({ scope, params }) => {
        const { activity, stagedCount } = await getActivity(deps.knex, scope, params.activity_id);
        return presentActivity(activity, stagedCount);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/activities/:activity_id/staged-changes',
      tags,
      summary: 'Staged changes of an activity (paginated, filterable)',
      params: activityParams,
      query: stagedChangesQuery,
      handler: async ({ scope, params, query }) => {
        const page = await listStagedChanges(deps.knex, scope, params.activity_id, query);
        return { ...page, items: page.items.map(presentStagedChange) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/activities/:activity_id/staged-changes/summary',
      tags,
      summary: 'Counts by status and per-field completion of an activity',
      params: activityParams,
      handler: ({ scope, params }) => stagedChangesSummary(deps.knex, scope, params.activity_id),
    }),
  ];
}
