/**
 * Feeds of a catalog to a channel (docs/feeds.md): create (with a proposed mapping when none is
 * given), read, list, change, delete, and rotate the token of the public URL. Runs are in
 * ./runs.ts; the rules and formats of channels in src/channels/ (through ./channel-port.ts).
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { NotFoundError, ValidationError, type ValidationDetail } from '../../lib/errors';
import { isUuid, newId } from '../../lib/ids';
import { Feed, type FeedFilter, type FeedFormat, type FeedMapping } from '../../models/feed';
import type { Scope } from '../access/scope';
import { loadCatalogOwned } from '../catalog/catalogs';
import { getCurrentSchema } from '../catalog/schema/schema';
import { channelById, mappingErrors, proposeFeedMapping, schemaFieldsOf, type MappingReasons } from './channel-port';
import { cronError } from './cron';

/** What a client may set on a feed (POST body; every key optional on PATCH). */
export interface FeedInput {
  channel: string;
  format: string;
  target_country: string;
  language: string;
  currency?: string | null;
  mapping?: FeedMapping;
  filter?: FeedFilter;
  schedule?: string | null;
}

/** A feed with the reasons of its proposed mapping (empty when the client gave the mapping). */
export interface FeedWithReasons {
  feed: Feed;
  mapping_reasons: MappingReasons;
}

/** A new public token: 32 random bytes, base64url (RFC 4648 §5), 43 characters. */
export function newFeedToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

/**
 * Checks a feed's settings against its channel and catalog schema.
 * @returns the 422 details (empty when valid): unknown channel, a format the channel does not
 *   offer, a bad cron expression, a mapping source that names a field the schema lacks
 */
function feedErrors(input: FeedInput, fields: string[]): ValidationDetail[] {
  const details: ValidationDetail[] = [];
  const channel = channelById(input.channel);
  if (!channel) {
    details.push({ loc: ['body', 'channel'], msg: `Unknown channel ${JSON.stringify(input.channel)}`, type: 'value_error.channel' });
  } else if (!(channel.formats as string[]).includes(input.format)) {
    details.push({
      loc: ['body', 'format'],
      msg: `Channel ${channel.id} offers the formats ${channel.formats.join(', ')}, not ${input.format}`,
      type: 'value_error.format',
    });
  }
  if (input.schedule) {
    const err = cronError(input.schedule);
    if (err) details.push({ loc: ['body', 'schedule'], msg: err, type: 'value_error.cron' });
  }
  if (input.mapping) details.push(...mappingErrors(input.mapping, fields, channel));
  return details;
}

/**
 * Loads a live feed of the caller's organization.
 * @throws NotFoundError (404) for an unknown, deleted or foreign feed
 */
export async function loadFeed(knex: Knex, scope: Scope, feedId: string): Promise<Feed> {
  // Ids are UUIDs: anything else names no feed (and would be a type error in PostgreSQL).
  const feed = isUuid(feedId) ? await Feed.query(knex).findById(feedId) : undefined;
  if (!feed || feed.deleted || feed.organization_id !== scope.organizationId) throw new NotFoundError('Feed not found');
  return feed;
}

/**
 * Creates a feed of a catalog. Without `mapping` the channel module proposes one from the
 * catalog schema (`mapping_suggested: true`, a reason per attribute).
 * @throws NotFoundError (404) for an unknown catalog; ValidationError (422) for bad settings
 */
export async function createFeed(knex: Knex, scope: Scope, catalogId: string, input: FeedInput): Promise<FeedWithReasons> {
  await loadCatalogOwned(knex, scope, catalogId);
  const schema = await getCurrentSchema(knex, catalogId);
  const fields = schemaFieldsOf(schema);
  const errors = feedErrors(
    input,
    fields.map((f) => f.name),
  );
  if (errors.length > 0) throw new ValidationError(errors);
  let mapping = input.mapping;
  let reasons: MappingReasons = {};
  if (!mapping) {
    const proposal = proposeFeedMapping(input.channel, fields, schema, input.currency ?? undefined);
    mapping = proposal.mapping;
    reasons = proposal.reasons;
  }
  const feed = await Feed.query(knex).insertAndFetch({
    id: newId(),
    organization_id: scope.organizationId,
    catalog_id: catalogId,
    channel: input.channel,
    format: input.format as FeedFormat,
    target_country: input.target_country.toUpperCase(),
    language: input.language,
    currency: input.currency ?? null,
    mapping,
    mapping_suggested: input.mapping === undefined,
    filter: input.filter ?? {},
    schedule: input.schedule ?? null,
    public_token: newFeedToken(),
    deleted: false,
  });
  return { feed, mapping_reasons: reasons };
}

/**
 * Changes a feed's settings; a new `mapping` makes `mapping_suggested` false.
 * @throws NotFoundError (404); ValidationError (422) as {@link createFeed}
 */
export async function updateFeed(knex: Knex, scope: Scope, feedId: string, patch: Partial<FeedInput>): Promise<Feed> {
  const feed = await loadFeed(knex, scope, feedId);
  const merged: FeedInput = {
    channel: patch.channel ?? feed.channel,
    format: patch.format ?? feed.format,
    target_country: patch.target_country ?? feed.target_country,
    language: patch.language ?? feed.language,
    currency: patch.currency === undefined ? feed.currency : patch.currency,
    mapping: patch.mapping ?? feed.mapping,
    filter: patch.filter ?? feed.filter,
    schedule: patch.schedule === undefined ? feed.schedule : patch.schedule,
  };
  const schema = await getCurrentSchema(knex, feed.catalog_id);
  const errors = feedErrors(
    merged,
    schemaFieldsOf(schema).map((f) => f.name),
  );
  if (errors.length > 0) throw new ValidationError(errors);
  return Feed.query(knex).patchAndFetchById(feedId, {
    channel: merged.channel,
    format: merged.format as FeedFormat,
    target_country: merged.target_country.toUpperCase(),
    language: merged.language,
    currency: merged.currency ?? null,
    mapping: merged.mapping,
    mapping_suggested: patch.mapping === undefined ? feed.mapping_suggested : false,
    filter: merged.filter,
    schedule: merged.schedule ?? null,
    updated_at: new Date(),
  });
}

/** The live feeds of a catalog, newest first. @throws NotFoundError (404) for an unknown catalog */
export async function listFeeds(knex: Knex, scope: Scope, catalogId: string): Promise<Feed[]> {
  await loadCatalogOwned(knex, scope, catalogId);
  return Feed.query(knex)
    .where({ catalog_id: catalogId, deleted: false })
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]);
}

/**
 * Deletes a feed: marked deleted (its public URL answers 404 from now on), its token replaced so
 * an old URL can never match again. Runs stay for a workflow still finishing.
 * @throws NotFoundError (404)
 */
export async function deleteFeed(knex: Knex, scope: Scope, feedId: string): Promise<Feed> {
  const feed = await loadFeed(knex, scope, feedId);
  await Feed.query(knex).patchAndFetchById(feed.id, { deleted: true, public_token: newFeedToken(), updated_at: new Date() });
  return feed;
}

/**
 * Gives a feed a new public token: the old public URL answers 404 from now on.
 * @throws NotFoundError (404)
 */
export async function rotateFeedToken(knex: Knex, scope: Scope, feedId: string): Promise<Feed> {
  await loadFeed(knex, scope, feedId);
  return Feed.query(knex).patchAndFetchById(feedId, { public_token: newFeedToken(), updated_at: new Date() });
}
