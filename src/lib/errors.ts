/**
 * Typed domain errors. Domain code throws these; only the error middleware turns them into HTTP
 * responses (docs/architecture.md "Errors"; docs/api-reference.md "Errors" for the bodies).
 */

/** One entry of a 422 body: `loc` starts with `body`, `query`, `path` or `header`, then the JSON path. */
export interface ValidationDetail {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

/**
 * The fields callers inspect on a thrown value of a library (pg's `code` and `constraint`, http-errors' `status`
 * and `type`, multer's `code` and `field`, Node's `code` and `cause`), each still `unknown`: an empty object
 * when the value is not an object. Catch clauses narrow through this instead of `any`.
 */
export function errorFields(err: unknown): {
  code?: unknown;
  status?: unknown;
  type?: unknown;
  name?: unknown;
  message?: unknown;
  field?: unknown;
  constraint?: unknown;
  cause?: unknown;
} {
  return typeof err === 'object' && err !== null ? err : {};
}

/** Base class: an HTTP status and a message safe to show to the client. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Response headers the error answer carries (e.g. `Retry-After` of a 429). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 422 with `{detail: [{loc, msg, type}]}`. */
export class ValidationError extends AppError {
  constructor(readonly details: ValidationDetail[]) {
    super(422, details.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '));
  }

  /** Shorthand for a single-entry validation error. */
  static at(loc: Array<string | number>, msg: string, type = 'value_error'): ValidationError {
    return new ValidationError([{ loc, msg, type }]);
  }
}

/** 401: no token, or a token that is not valid. */
export class UnauthorizedError extends AppError {
  constructor(message = 'Not authenticated') {
    super(401, message);
  }
}

/** 403: the resource or organization belongs to someone else. */
export class ForbiddenError extends AppError {
  constructor(message = 'Not allowed for this organization') {
    super(403, message);
  }
}

/** 404: no such resource in the caller's organization. */
export class NotFoundError extends AppError {
  constructor(message = 'Not found') {
    super(404, message);
  }
}

/** 409: the request conflicts with the resource's state (e.g. cancelling a completed job). */
export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, message);
  }
}

/** 413: the body is over the documented limit. */
export class PayloadTooLargeError extends AppError {
  constructor(message = 'Request body too large') {
    super(413, message);
  }
}

/** 415: the body is not in a media type the route reads (it used to be read as `{}`). */
export class UnsupportedMediaTypeError extends AppError {
  constructor(message: string) {
    super(415, message);
  }
}

/**
 * 429: a rate limit or quota is exhausted. Carries `Retry-After` (whole seconds) and
 * the IETF draft `RateLimit-*` headers of the limit that refused.
 */
export class TooManyRequestsError extends AppError {
  constructor(message: string, retryAfterS: number, headers: Record<string, string> = {}) {
    super(429, message, { ...headers, 'Retry-After': String(Math.max(1, Math.ceil(retryAfterS))) });
  }
}

/** 503: a dependency (PostgreSQL, Temporal) is unavailable; the request may be retried. */
export class ServiceUnavailableError extends AppError {
  constructor(message: string) {
    super(503, message);
  }
}

/**
 * 503: the request needs a capability this deployment has off (src/services/capabilities.ts;
 * docs/configuration.md, "Capabilities"), e.g. running a flow's custom_code node without the Python
 * sandbox's programs. Refused at once, before anything is stored or started; the message names the
 * capability, why it is off, and what needed it. It may be retried once the capability is on.
 */
export class CapabilityOffError extends ServiceUnavailableError {
  constructor(
    readonly capability: string,
    readonly reason: string,
    what: string,
  ) {
    super(`${capability} is off (${reason}): ${what}`);
  }
}
