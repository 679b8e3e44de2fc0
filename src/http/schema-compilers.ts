import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';
import { strictBodyValidators } from './validation.js';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type BuildValidator = NonNullable<CompilersFactory['buildValidator']>;
type BuildSerializer = NonNullable<CompilersFactory['buildSerializer']>;
type RouteSchema = { schema: unknown; httpPart?: string; httpStatus?: string };
type Compiled = (route: RouteSchema) => unknown;

/**
 * Fastify's validator and serializer compilers, each schema compiled once however many routes or
 * apps declare it. Compiling is most of what starting the HTTP app costs (Ajv and
 * fast-json-stringify: ~0.3 s of CPU a start, docs/decisions.md), and many routes declare the same
 * schemas (every route's error bodies, the lock JSON); the test suite starts hundreds of services
 * in a few processes, each of which hands its one SchemaCompilers to every service it starts.
 * A compiled function depends only on its schema (as JSON: several routes build equal schemas
 * anew), the part it checks and the options, which are the same for every app given this object.
 */
export class SchemaCompilers {
  private readonly validators = new Map<string, unknown>();
  private readonly serializers = new Map<string, unknown>();
  private readonly validatorsFrom = strictBodyValidators();
  private readonly serializersFrom = SerializerSelector();

  readonly factory: CompilersFactory = {
    buildValidator: ((externalSchemas: unknown, options: unknown) => {
      const compile = this.validatorsFrom(externalSchemas as never, options as never) as unknown as Compiled;
      const scope = keyOf({ externalSchemas, options });
      return (route: RouteSchema) => remember(this.validators, `${scope}|${route.httpPart === 'body' ? 'body' : 'text'}|${keyOf(route.schema)}`, () => compile(route));
    }) as unknown as BuildValidator,
    buildSerializer: ((externalSchemas: unknown, options: unknown) => {
      const compile = this.serializersFrom(externalSchemas as never, options as never) as unknown as Compiled;
      const scope = keyOf({ externalSchemas, options });
      return (route: RouteSchema) => remember(this.serializers, `${scope}|${keyOf(route.schema)}`, () => compile(route));
    }) as unknown as BuildSerializer,
  };
}

function keyOf(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}

function remember<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let made = cache.get(key);
  if (made === undefined) {
    made = make();
    cache.set(key, made);
  }
  return made;
}
