import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';
import { compileTolerance } from './tolerant-body.js';

/** Ajv settings shared by every part of a request. */
export const AJV_OPTIONS = { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: false } as const;

type BuildValidator = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']>;
type RouteSchema = { schema: unknown; method: string; url: string; httpPart?: string };
type Validate = ((data: unknown) => boolean) & { errors?: unknown };
type RouteValidatorCompiler = (route: RouteSchema) => Validate;

/**
 * The body validator behind the tolerant reader (src/http/tolerant-body.ts): explicit nulls of
 * optional members and unknown members are removed first, then the body is checked as sent.
 */
function tolerantBody(route: RouteSchema, validate: Validate): Validate {
  const tolerate = compileTolerance(route.schema);
  if (tolerate === null) return validate;
  const tolerant = ((data: unknown) => {
    tolerate(data);
    return validate(data);
  }) as Validate;
  Object.defineProperty(tolerant, 'errors', { get: () => validate.errors });
  return tolerant;
}

/**
 * Fastify's own Ajv compiler, twice: query strings, params and headers arrive as text, so their
 * values are coerced (`?force=true`, a repeated `?device=` as an array); JSON bodies already carry
 * types, so they are checked as sent: `"password": ["x"]` or `"email": 5` is a 400, not coerced
 * into a string; an explicit null for an optional member, or an unknown member, is dropped first.
 */
export function strictBodyValidators(): BuildValidator {
  const fromPool = AjvCompiler();
  const build = (externalSchemas: Parameters<BuildValidator>[0], options: { customOptions?: object } | undefined) => {
    const customOptions = { ...options?.customOptions };
    const coercing = fromPool(externalSchemas, { ...options, customOptions } as never) as unknown as RouteValidatorCompiler;
    const strict = fromPool(externalSchemas, { ...options, customOptions: { ...customOptions, coerceTypes: false } } as never) as unknown as RouteValidatorCompiler;
    return (route: RouteSchema) => (route.httpPart === 'body' ? tolerantBody(route, strict(route)) : coercing(route));
  };
  return build as unknown as BuildValidator;
}
