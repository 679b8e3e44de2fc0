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

/** The first member of `data` (or of an array it holds) that is a number but not a finite one. */
function nonFiniteMember(data: unknown): string | null {
  if (typeof data !== 'object' || data === null) return null;
  for (const [name, value] of Object.entries(data)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    if (values.some((item) => typeof item === 'number' && !Number.isFinite(item))) return name;
  }
  return null;
}

/**
 * A coercing validator that also refuses what text coerces to ±Infinity (`?limit=1e309`): Ajv
 * takes it for an integer within any bound, and it would reach the database as a LIMIT (a 500).
 */
function finiteNumbers(route: RouteSchema, validate: Validate): Validate {
  // Only a part with a number in its schema can hold one (params of ids, most headers: none).
  if (!/"type":(\["[a-z]+",)*"(integer|number)"/.test(JSON.stringify(route.schema) ?? '')) return validate;
  const finite = ((data: unknown) => {
    if (!validate(data)) {
      finite.errors = validate.errors;
      return false;
    }
    const name = nonFiniteMember(data);
    finite.errors = name === null ? null : [{ keyword: 'type', instancePath: `/${name}`, schemaPath: '#/type', params: { type: 'number' }, message: 'must be a finite number' }];
    return name === null;
  }) as Validate;
  return finite;
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
    return (route: RouteSchema) => (route.httpPart === 'body' ? tolerantBody(route, strict(route)) : finiteNumbers(route, coercing(route)));
  };
  return build as unknown as BuildValidator;
}
