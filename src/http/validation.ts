import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';

/** Ajv settings shared by every part of a request. */
export const AJV_OPTIONS = { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: false } as const;

type BuildValidator = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']>;
type RouteSchema = { schema: unknown; method: string; url: string; httpPart?: string };
type RouteValidatorCompiler = (route: RouteSchema) => unknown;

/**
 * Fastify's own Ajv compiler, twice: query strings, params and headers arrive as text, so their
 * values are coerced (`?force=true`, a repeated `?device=` as an array); JSON bodies already carry
 * types, so they are checked as sent: `"password": ["x"]` or `"email": 5` is a 400, not coerced
 * into a string.
 */
export function strictBodyValidators(): BuildValidator {
  const fromPool = AjvCompiler();
  const build = (externalSchemas: Parameters<BuildValidator>[0], options: { customOptions?: object } | undefined) => {
    const customOptions = { ...options?.customOptions };
    const coercing = fromPool(externalSchemas, { ...options, customOptions } as never) as unknown as RouteValidatorCompiler;
    const strict = fromPool(externalSchemas, { ...options, customOptions: { ...customOptions, coerceTypes: false } } as never) as unknown as RouteValidatorCompiler;
    return (route: RouteSchema) => (route.httpPart === 'body' ? strict(route) : coercing(route));
  };
  return build as unknown as BuildValidator;
}
