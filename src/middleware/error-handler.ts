import type { Context, Next } from 'koa';
import { AppError, ValidationError } from '../lib/errors';
import { logger } from '../lib/logger';

/**
 * Maps every error to the bodies of decisions.md §1: 422 `{detail: [...]}` for validation,
 * `{detail: "<message>"}` for other known errors, 413 for oversized bodies, 422 `json_invalid`
 * for malformed JSON, and a generic 500 (logged with the request id, never a stack trace).
 */
export async function errorHandler(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (err: any) {
    if (err instanceof ValidationError) {
      ctx.status = 422;
      ctx.body = { detail: err.details };
    } else if (err instanceof AppError) {
      ctx.status = err.status;
      ctx.body = { detail: err.message };
    } else if (err?.status === 413 || err?.type === 'entity.too.large') {
      ctx.status = 413;
      ctx.body = { detail: 'Request body too large' };
    } else if (err?.status === 400 && (err?.type === 'entity.parse.failed' || err?.name === 'SyntaxError' || /JSON/i.test(err?.message ?? ''))) {
      ctx.status = 422;
      ctx.body = { detail: [{ loc: ['body'], msg: 'Invalid JSON', type: 'json_invalid' }] };
    } else if (err?.status === 415 || err?.type === 'encoding.unsupported' || err?.type === 'charset.unsupported') {
      ctx.status = 415;
      ctx.body = { detail: 'Unsupported content type or encoding' };
    } else {
      logger.error({ err, request_id: ctx.state.requestId, path: ctx.path }, 'unhandled error');
      ctx.status = 500;
      ctx.body = { detail: 'Internal server error' };
    }
  }
}
