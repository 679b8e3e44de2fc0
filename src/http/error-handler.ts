import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { databaseErrorToAppError } from '../db/errors.js';
import { errors, isAppError, type AppError } from '../errors/catalogue.js';
import { unreachableDependencyToAppError } from './unavailable.js';

/** The error body every client parses: `{code, message}`, plus a stable `error` string. */
export function errorBody(err: AppError): { code: number; message: string; error: string } {
  return { code: err.code, message: err.message, error: err.error };
}

function fromFastifyError(err: FastifyError): AppError | null {
  if (err.validation) return errors.validation(err.message);
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return errors.badRequest();
  }
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return err.statusCode === 400 ? errors.badRequest() : errors.clientError(err.statusCode, err.message);
  }
  return null;
}

/** One place turns any thrown value into the documented error format; a 500 says nothing about internals. */
export function handleError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const known = isAppError(err) ? err : (databaseErrorToAppError(err) ?? unreachableDependencyToAppError(err) ?? fromFastifyError(err as FastifyError));
  const appError = known ?? errors.internal();
  // Only a 500 (the unexpected) is an error with its stack; another 5xx (lock offline, no reply,
  // shutting down) is the state of things, worth a warning the operator can read at a glance.
  if (appError.status === 500) request.serviceLog.error({ err }, 'request failed');
  else if (appError.status >= 500) request.serviceLog.warn({ status: appError.status, error: appError.error }, 'request not served');
  else request.log.info({ status: appError.status, error: appError.error }, 'request refused');
  return reply.code(appError.status).headers(appError.headers).type('application/json; charset=utf-8').send(errorBody(appError));
}
