import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { onRequestHookHandler, RouteOptions } from 'fastify';
import { addRouteHook } from '../../src/http/app.js';

const hook = (): onRequestHookHandler => (_request, _reply, done) => done();
const route = (onRequest?: RouteOptions['onRequest']): RouteOptions => ({ method: 'GET', url: '/x', handler: () => null, ...(onRequest ? { onRequest } : {}) });

describe('addRouteHook', () => {
  it('runs the hooks in the order they were added, before the route’s own', () => {
    const own = hook();
    const [negotiation, authentication, scopeCheck] = [hook(), hook(), hook()];
    const options = route(own);
    addRouteHook(options, negotiation);
    addRouteHook(options, authentication);
    addRouteHook(options, scopeCheck);
    assert.deepEqual(options.onRequest, [negotiation, authentication, scopeCheck, own]);
  });

  it('keeps a route’s own hooks in their order, and takes a route with none', () => {
    const own = [hook(), hook()];
    const first = hook();
    const withHooks = route(own);
    addRouteHook(withHooks, first);
    assert.deepEqual(withHooks.onRequest, [first, ...own]);
    const bare = route();
    addRouteHook(bare, first);
    assert.deepEqual(bare.onRequest, [first]);
  });
});
