import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { compileTolerance } from '../../src/http/tolerant-body.js';

const normalise = (schema: unknown, value: unknown) => {
  compileTolerance(schema)?.(value);
  return value;
};

describe('compileTolerance: the tolerant reader of body schemas', () => {
  const Inner = Type.Object({ a: Type.String(), b: Type.Optional(Type.Number()) });
  const Body = Type.Object({
    required: Type.String(),
    optional: Type.Optional(Type.String()),
    nullable: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    inner: Type.Optional(Inner),
    list: Type.Optional(Type.Array(Inner)),
  });

  it('drops the null of an optional member, keeps a null the schema admits or a required member holds', () => {
    assert.deepEqual(normalise(Body, { required: null, optional: null, nullable: null }), { required: null, nullable: null });
  });

  it('drops unknown members at every depth, in objects and in arrays of objects', () => {
    const value = { type: 'x.Y', required: 'r', inner: { type: 'x.Z', a: 'a', b: null, extra: 1 }, list: [{ a: 'a', type: 'x', b: null }] };
    assert.deepEqual(normalise(Body, value), { required: 'r', inner: { a: 'a' }, list: [{ a: 'a' }] });
  });

  it('leaves values of the wrong type for the validator to refuse', () => {
    assert.deepEqual(normalise(Body, { required: 5, inner: 'text', list: { a: 1 } }), { required: 5, inner: 'text', list: { a: 1 } });
  });

  it('merges union branches: a member any branch names is kept, its null dropped only when optional in all', () => {
    const Union = Type.Union([Type.Object({ kind: Type.String(), x: Type.Optional(Type.Number()) }), Type.Object({ y: Type.Optional(Type.Number()), x: Type.Number() })]);
    assert.deepEqual(normalise(Union, { kind: 'k', x: null, y: null, z: 1 }), { kind: 'k', x: null });
    const Optional = Type.Union([Type.Object({ x: Type.Optional(Type.Number()) }), Type.Object({ x: Type.Optional(Type.String()) })]);
    assert.deepEqual(normalise(Optional, { x: null }), {});
  });

  it('keeps the unknown keys of a map, and still normalises the members it names', () => {
    assert.equal(compileTolerance(Type.Record(Type.String(), Type.Unknown())), null);
    const Jwk = Type.Object({ alg: Type.Optional(Type.String()) }, { additionalProperties: Type.Unknown() });
    assert.deepEqual(normalise(Jwk, { alg: null, kty: 'OKP', x: 'abc', type: 'k' }), { kty: 'OKP', x: 'abc', type: 'k' });
  });

  it('does not touch an unconstrained member (Type.Unknown admits null)', () => {
    const Loose = Type.Object({ anything: Type.Optional(Type.Unknown()) });
    assert.deepEqual(normalise(Loose, { anything: null }), { anything: null });
  });

  it('has nothing to do for a body that is not an object', () => {
    assert.equal(compileTolerance(Type.String()), null);
    assert.equal(compileTolerance(undefined), null);
  });
});
