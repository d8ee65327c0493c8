import type { Context, Next } from 'koa';
import { AppError, errorFields, ValidationError } from '../lib/errors';
import { logger } from '../lib/logger';

/**
 * Maps every error to the bodies of docs/api-reference.md "Errors": 422 `{detail: [...]}` for validation,
 * `{detail: "<message>"}` for other known errors, 413 for oversized bodies, 422 `json_invalid`
 * for malformed JSON, and a generic 500 (logged with the request id, never a stack trace).
 */
export async function errorHandler(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (err) {
    const e = errorFields(err);
    if (err instanceof ValidationError) {
      ctx.status = 422;
      ctx.body = { detail: err.details };
    } else if (err instanceof AppError) {
      ctx.status = err.status;
      ctx.set(err.headers);
      ctx.body = { detail: err.message };
    } else if (e.status === 413 || e.type === 'entity.too.large') {
      ctx.status = 413;
      ctx.body = { detail: 'Request body too large' };
    } else if (e.status === 400 && (e.type === 'entity.parse.failed' || e.name === 'SyntaxError' || /JSON/i.test(String(e.message ?? '')))) {
      ctx.status = 422;
      ctx.body = { detail: [{ loc: ['body'], msg: 'Invalid JSON', type: 'json_invalid' }] };
    } else if (e.status === 415 || e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
      ctx.status = 415;
      ctx.body = { detail: 'Unsupported content type or encoding' };
    } else {
      logger.error({ err, request_id: ctx.state.requestId, path: ctx.path }, 'unhandled error');
      ctx.status = 500;
      ctx.body = { detail: 'Internal server error' };
    }
  }
}
