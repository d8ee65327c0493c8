import type { Knex } from 'knex';
import type Router from '@koa/router';
import type { TSchema, TUnknown } from '@sinclair/typebox';
import type { Context } from 'koa';
import type { Role } from '../models/person';
import { UnsupportedMediaTypeError } from '../lib/errors';
import { assertStorableText, InputPart, Validated, Validator } from '../lib/validation';
import { RememberedAnswer, requestHash } from '../services/access/idempotency';
import { assertRole } from '../services/access/roles';
import { apiRouteRole } from '../services/access/route-roles';
import type { Scope } from '../services/access/scope';

/** HTTP methods routes may use. */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * What a handler receives: validated inputs, the caller's scope (null on public routes), and the
 * app's validator (for inputs a handler parses itself, e.g. multipart `request_json`).
 */
export interface HandlerInput<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  scope: Scope;
  ctx: Context;
  validator: Validator;
  /**
   * The request's database handle: for an {@link RouteDef.atomic} route the transaction the whole
   * handler runs in (its Idempotency-Key answer is stored in the same one); else the app's knex.
   */
  db: Knex;
  /**
   * With an `Idempotency-Key`: the id the request gives what it creates
   * (src/services/access/idempotency.ts idempotentResourceId), the same for every retry within
   * the key's claim.
   */
  idempotentId?: string;
}

/**
 * One route: its path (Koa syntax, relative to `/api` unless `absolute`), the JSON Schemas of
 * its inputs and response, and its handler. The same schemas validate requests and generate
 * `GET /api/openapi.json`, so documentation and validation cannot drift.
 */
export interface RouteDef<B extends TSchema = TSchema, Q extends TSchema = TSchema, P extends TSchema = TSchema> {
  method: Method;
  path: string;
  summary: string;
  tags: string[];
  body?: B;
  /** A `multipart/form-data` alternative of the body (documentation only; the handler parses it). */
  multipart?: TSchema;
  query?: Q;
  params?: P;
  /** Schema of the success body (documentation only). */
  response?: TSchema;
  /** Success status (default 200). */
  status?: number;
  /**
   * Error statuses the route answers beyond those every route documents (422, 401, 403, 404, 409,
   * 413, 415, 429), each with when (documentation only), e.g. `{ 503: 'python_flows is off …' }`;
   * the body is `{detail: "…"}`.
   */
  errors?: Record<number, string>;
  /** Routes served without authentication (health, docs). */
  public?: boolean;
  /** Not listed in the OpenAPI document (e.g. the docs page itself). */
  hidden?: boolean;
  /**
   * A GET answered conditionally (RFC 9110 §13.1.2): the success carries an `ETag` of what it
   * names here, and a matching `If-None-Match` gets 304 without a body (the handler checks it;
   * documentation only).
   */
  etagOf?: string;
  /** Headers the success response carries besides ETag, by name: what each says (OpenAPI's `headers`; strings). */
  responseHeaders?: Record<string, string>;
  /**
   * The handler only reads and writes the database through {@link HandlerInput.db} (it starts
   * and waits for no workflow): it runs in one transaction, so it commits all of its writes or
   * none, and with an `Idempotency-Key` its answer is stored in that transaction. A process that
   * dies after the writes committed has then also recorded the answer, and a retry replays it
   * instead of writing again (the standards: faults never write twice).
   */
  atomic?: boolean;
  /**
   * Returns the response body; may instead set `ctx.status`/`ctx.body` itself and return undefined.
   * Declared as a method so that a typed route is assignable to the registry's `RouteDef`
   * (method parameters are compared bivariantly); its input types come from the schemas above.
   * `NoInfer`: the schema types are inferred from `body`/`query`/`params` only, never back from
   * the handler (inferring through `Validated<>` hits TS2589 on the enrich request's size).
   */
  handler(input: HandlerInput<Validated<NoInfer<B>>, Validated<NoInfer<Q>>, Validated<NoInfer<P>>>): Promise<unknown> | unknown;
}

/**
 * Declares one route with its handler's input types derived from its schemas: `body` is what
 * the `body` schema accepts (`Validated<>`: properties with a default are present), likewise
 * `query` and `params`; an input without a schema is `unknown`. Returns `def` unchanged, as the
 * registry's schema-agnostic `RouteDef` (so route lists are never compared type by type).
 */
export function defineRoute<B extends TSchema = TUnknown, Q extends TSchema = TUnknown, P extends TSchema = TUnknown>(def: RouteDef<B, Q, P>): RouteDef {
  return def;
}

/**
 * A request that sends a body must send it as JSON, or as multipart/form-data where the route
 * documents a multipart form; anything else (text/plain, XML, a urlencoded form) was silently
 * read as `{}` by the JSON body parser.
 * @throws UnsupportedMediaTypeError (415)
 */
function assertReadableBody(ctx: Context, def: RouteDef): void {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
  if (!hasBody || ctx.is('json', '+json')) return;
  if (def.multipart && ctx.is('multipart/form-data')) return;
  const accepted = def.multipart ? 'application/json or multipart/form-data' : 'application/json';
  throw new UnsupportedMediaTypeError(`Content-Type must be ${accepted} (got ${ctx.get('content-type') || 'none'})`);
}

/** `value` after {@link assertStorableText}: an input part that has no schema. */
function storable<T>(value: T, part: InputPart): T {
  assertStorableText(value, part);
  return value;
}

/**
 * Runs a POST at most once per organization and `Idempotency-Key` (src/services/access/idempotency.ts
 * runIdempotent, bound to the app's database); `atomic`: the handler runs in a transaction it is
 * given, which also stores the answer.
 */
export type IdempotentRunner = (
  organizationId: string,
  key: string,
  hash: string,
  handler: (db: Knex, idempotentId: string) => Promise<RememberedAnswer>,
  atomic: boolean,
) => Promise<RememberedAnswer & { replayed: boolean }>;

/** Options of {@link RouteRegistry.mount}. */
export interface MountOptions {
  /** The app's database: the handlers' `db`, and the transactions of atomic routes. */
  knex: Knex;
  /** When given, every POST honours an `Idempotency-Key` header. */
  idempotent?: IdempotentRunner;
}

/** Collects route definitions, mounts them on a router, and renders the OpenAPI document. */
export class RouteRegistry {
  readonly routes: RouteDef[] = [];
  /** Each added route's minimum role (null: a public route), read once when it is added; mount and the OpenAPI document both use it. */
  private readonly roles = new Map<RouteDef, Role | null>();

  /**
   * Adds routes (each router module exports an array of definitions).
   * @throws Error when a state-changing route declares no role in src/services/access/route-roles.ts
   */
  add(...defs: RouteDef[]): this {
    for (const def of defs) this.roles.set(def, def.public ? null : apiRouteRole(def.method, def.path));
    this.routes.push(...defs);
    return this;
  }

  /** The minimum role of an added route (null for a public one). */
  private roleOf(def: RouteDef): Role | null {
    return this.roles.get(def) ?? null;
  }

  /**
   * Mounts every route on `router`. Validation runs in order path → query → body, each
   * failing with 422 `detail[]` (docs/api-reference.md "Errors"). `ctx.state.scope` must be set by the auth
   * middleware for non-public routes. `validator` is the app's (one per app, created by createApp).
   * Before anything else, the caller's role must reach the route's minimum role
   * (src/services/access/route-roles.ts, read by {@link add}; 403 naming both roles).
   */
  mount(router: Router, validator: Validator, options: MountOptions): void {
    for (const def of this.routes) {
      const role = this.roleOf(def);
      router[def.method](def.path, async (ctx: Context) => {
        const caller: Scope | undefined = ctx.state.scope;
        if (role && caller) assertRole(caller, role);
        assertReadableBody(ctx, def);
        // Every part is checked for text PostgreSQL cannot store, with a schema or without one.
        const params = def.params ? validator.validate(def.params, { ...ctx.params }, 'path') : storable(ctx.params, 'path');
        const query = def.query ? validator.validate(def.query, { ...ctx.query }, 'query') : storable(ctx.query, 'query');
        const rawBody = ctx.request.body;
        const body = def.body ? validator.validate(def.body, rawBody === undefined ? {} : rawBody, 'body') : storable(rawBody, 'body');
        const run = async (db: Knex, idempotentId?: string): Promise<RememberedAnswer | undefined> => {
          const result = await def.handler({ body, query, params, scope: ctx.state.scope, ctx, validator, db, idempotentId });
          return result === undefined ? undefined : { status: def.status ?? 200, body: result };
        };
        const key = ctx.get('idempotency-key');
        const scope: Scope | undefined = ctx.state.scope;
        if (def.method === 'post' && key && scope && options.idempotent) {
          // A multipart body is parsed by the handler: its length stands in for it in the hash.
          const hashed = ctx.is('multipart/form-data') ? { multipart_bytes: ctx.get('content-length') } : body;
          const hash = requestHash({ method: def.method, route: def.path, params, query, body: hashed });
          const answer = await options.idempotent(
            scope.organizationId,
            key,
            hash,
            async (db, idempotentId) => (await run(db, idempotentId)) ?? { status: ctx.status, body: ctx.body },
            def.atomic === true,
          );
          ctx.status = answer.status;
          ctx.body = answer.body;
          if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
          return;
        }
        const answer = def.atomic ? await options.knex.transaction((trx) => run(trx)) : await run(options.knex);
        if (answer) {
          ctx.status = answer.status;
          ctx.body = answer.body;
        }
      });
    }
  }

  /**
   * The OpenAPI 3.1 document of every non-hidden route, mounted under `basePath`.
   * Long on purpose: one pass builds each operation (parameters, responses, roles) in the order the document lists them.
   */
  openapi(info: { title: string; version: string }, basePath: string): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const def of this.routes) {
      if (def.hidden) continue;
      const oaPath = def.path.startsWith('/') && !def.public ? basePath + def.path.replace(/:(\w+)/g, '{$1}') : def.path.replace(/:(\w+)/g, '{$1}');
      // docs/api-reference.md "Authentication": X-Organization-Id is accepted on every authenticated operation.
      const parameters: unknown[] = def.public ? [] : [{ $ref: '#/components/parameters/OrganizationId' }];
      if (!def.public && def.method === 'post') parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
      if (def.etagOf) parameters.push({ $ref: '#/components/parameters/IfNoneMatch' });
      for (const [where, schema] of [
        ['path', def.params],
        ['query', def.query],
      ] as const) {
        const props: Record<string, TSchema> = schema?.properties ?? {};
        const required = new Set((schema?.required as string[] | undefined) ?? []);
        for (const [name, s] of Object.entries(props)) {
          parameters.push({ name, in: where, required: where === 'path' || required.has(name), schema: s, description: s.description });
        }
      }
      const status = String(def.status ?? 200);
      const role = this.roleOf(def);
      const op: Record<string, unknown> = {
        summary: def.summary,
        // The route's minimum role (src/services/access/route-roles.ts).
        ...(role && role !== 'viewer'
          ? {
              description: `Needs role ${role} or above when a person calls (a session or a person's tool-server key); organization API keys and user tokens act as admin.`,
            }
          : {}),
        tags: def.tags,
        parameters,
        responses: {
          [status]: {
            description: 'Success',
            ...(def.etagOf || def.responseHeaders
              ? {
                  headers: {
                    ...(def.etagOf ? { ETag: { schema: { type: 'string' }, description: `Strong validator of ${def.etagOf}` } } : {}),
                    ...Object.fromEntries(
                      Object.entries(def.responseHeaders ?? {}).map(([name, description]) => [name, { schema: { type: 'string' }, description }]),
                    ),
                  },
                }
              : {}),
            ...(def.response ? { content: { 'application/json': { schema: def.response } } } : {}),
          },
          ...(def.etagOf ? { '304': { description: `Not modified: ${def.etagOf} still has the ETag given in If-None-Match` } } : {}),
          ...(def.body || def.multipart || def.query || def.params ? { '422': { $ref: '#/components/responses/ValidationError' } } : {}),
          ...(def.public
            ? {}
            : {
                '401': { $ref: '#/components/responses/Error' },
                '403': { $ref: '#/components/responses/Error' },
                // A path naming a resource that is not there (or not the organization's).
                ...(def.params ? { '404': { $ref: '#/components/responses/NotFound' } } : {}),
                // A repeat of a POST while the first with its Idempotency-Key runs, or a state conflict.
                ...(def.method === 'post' ? { '409': { $ref: '#/components/responses/Error' } } : {}),
                // Rate limits and quotas (src/services/access/rate-limits.ts): Retry-After, RateLimit-*.
                '429': { $ref: '#/components/responses/TooManyRequests' },
              }),
          ...(def.body || def.multipart ? { '413': { $ref: '#/components/responses/PayloadTooLarge' }, '415': { $ref: '#/components/responses/Error' } } : {}),
          ...Object.fromEntries(
            Object.entries(def.errors ?? {}).map(([code, when]) => [
              code,
              { description: when, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
            ]),
          ),
        },
        ...(def.public ? { security: [] } : {}),
      };
      if (def.body || def.multipart) {
        op.requestBody = {
          // An object body whose every property is optional may be left out (mount reads a missing body as {});
          // a route that reads only a multipart form needs it.
          required: !def.body || def.body.type !== 'object' || ((def.body.required as string[] | undefined) ?? []).length > 0,
          content: {
            ...(def.body ? { 'application/json': { schema: def.body } } : {}),
            ...(def.multipart ? { 'multipart/form-data': { schema: def.multipart } } : {}),
          },
        };
      }
      (paths[oaPath] ??= {})[def.method] = op;
    }
    return {
      openapi: '3.1.0',
      info,
      servers: [{ url: '/' }],
      security: [{ bearer: [] }],
      paths,
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key (`ck_…`) or user token (JWT)' } },
        schemas: {
          ValidationError: {
            type: 'object',
            properties: {
              detail: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { loc: { type: 'array', items: { type: ['string', 'integer'] } }, msg: { type: 'string' }, type: { type: 'string' } },
                },
              },
            },
          },
          Error: { type: 'object', properties: { detail: { type: 'string' } } },
        },
        parameters: {
          OrganizationId: {
            name: 'X-Organization-Id',
            in: 'header',
            required: false,
            schema: { type: 'string' },
            description: "Organization to act for; must be one of the principal's (403 otherwise). Default: the key's organization or the user's first.",
          },
          IfNoneMatch: {
            name: 'If-None-Match',
            in: 'header',
            required: false,
            schema: { type: 'string' },
            description: 'ETags of a copy the client holds (RFC 9110 §13.1.2); when one matches, the answer is 304 without a body.',
          },
          IdempotencyKey: {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            schema: { type: 'string', minLength: 1, maxLength: 255 },
            description:
              'Makes the POST idempotent for 24 h: a repeat with the same key and request gets the first answer again (header `Idempotent-Replayed: true`) and runs nothing; the same key with another request is a 422; a repeat while the first runs is a 409.',
          },
        },
        responses: {
          ValidationError: { description: 'Validation failure', content: { 'application/json': { schema: { $ref: '#/components/schemas/ValidationError' } } } },
          Error: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
          NotFound: {
            description: "No such resource in the caller's organization",
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
          PayloadTooLarge: {
            description: 'The request body, an uploaded file or a form field is larger than the service accepts (JSON bodies: 10 MB; files: per route)',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
          TooManyRequests: {
            description: 'A rate limit or quota is exhausted; retry after `Retry-After` seconds',
            headers: {
              'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait' },
              'RateLimit-Limit': { schema: { type: 'integer' } },
              'RateLimit-Remaining': { schema: { type: 'integer' } },
              'RateLimit-Reset': { schema: { type: 'integer' }, description: 'Seconds until the window resets' },
            },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        },
      },
    };
  }
}
