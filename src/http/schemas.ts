import { Type, type TSchema } from '@sinclair/typebox';
import type { RouteOptions } from 'fastify';

/** The error body of decisions §1, as documented in the OpenAPI document. */
export const ErrorResponse = Type.Object(
  { code: Type.Number({ description: 'HTTP status, possibly with a decimal minor code' }), message: Type.String(), error: Type.Optional(Type.String()) },
  { $id: undefined },
);

const DESCRIPTIONS: Record<number, string> = {
  400: 'malformed request',
  401: 'authentication token invalid',
  403: 'caller lacks permission',
  404: 'resource not found',
  406: 'requested format is not JSON',
  409: 'conflict',
  423: 'secondary authentication check required, or resource locked',
  429: 'too many requests',
  503: 'the lock is offline',
  504: 'the lock did not respond in time',
};

/** Response schemas for a route's error statuses, so the OpenAPI document lists them. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, { ...ErrorResponse, description: DESCRIPTIONS[s] ?? 'error' }]));
}

/**
 * Adds error statuses every route of a scope may answer (the per-caller request limit's 429) to a
 * route's declared responses, from an `onRoute` hook of that scope: declared in one place, told
 * by the OpenAPI document on every route. A route without a response schema is left as it is.
 */
export function declareErrorStatuses(route: RouteOptions, ...statuses: number[]): void {
  const schema = route.schema as { response?: Record<string, unknown> } | undefined;
  if (schema?.response === undefined) return;
  route.schema = { ...schema, response: { ...errorResponses(...statuses), ...schema.response } };
}

export const NoContent = Type.Null({ description: 'no content' });
