import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import pino from 'pino';
import { createHttpApp } from '../../src/http/app.js';
import { errors } from '../../src/errors/catalogue.js';

async function checkedApp() {
  const undeclared: string[] = [];
  const app = await createHttpApp({ logger: pino({ level: 'silent' }), baseUrl: 'http://latchkey.test', trustProxy: [], onUndeclaredStatus: (what) => undeclared.push(what) });
  return { app, undeclared };
}

describe('the declared-status check (tests only)', () => {
  it('passes a reply whose status the route declares, and turns an undeclared one into a recorded 500', async () => {
    const { app, undeclared } = await checkedApp();
    const response = { 200: Type.Object({ ok: Type.Boolean() }), 404: Type.Object({ code: Type.Number(), message: Type.String(), error: Type.String() }) };
    app.get('/fine', { config: { auth: 'none' }, schema: { response } }, async () => ({ ok: true }));
    app.get('/missing', { config: { auth: 'none' }, schema: { response } }, async () => {
      throw errors.notFound('thing');
    });
    app.get('/conflict', { config: { auth: 'none' }, schema: { response } }, async () => {
      throw errors.conflict();
    });
    try {
      assert.equal((await app.inject({ method: 'GET', url: '/fine' })).statusCode, 200);
      assert.equal((await app.inject({ method: 'GET', url: '/missing' })).statusCode, 404);
      assert.deepEqual(undeclared, []);
      const refused = await app.inject({ method: 'GET', url: '/conflict' });
      assert.equal(refused.statusCode, 500);
      assert.equal(refused.json().error, 'undeclared_status');
      assert.deepEqual(undeclared, ['GET /conflict answered 409, which it does not declare']);
      // A path no route serves is not a route's reply.
      assert.equal((await app.inject({ method: 'GET', url: '/nowhere' })).statusCode, 404);
      assert.equal(undeclared.length, 1);
    } finally {
      await app.close();
    }
  });

  it('refuses a route that declares no response schema, unless hidden from the document', async () => {
    const { app } = await checkedApp();
    try {
      assert.throws(() => app.get('/bare', { config: { auth: 'none' } }, async () => ({})), /GET \/bare declares no response schema/);
      app.get('/hidden', { config: { auth: 'none' }, schema: { hide: true } }, async () => ({}));
    } finally {
      await app.close();
    }
  });
});
