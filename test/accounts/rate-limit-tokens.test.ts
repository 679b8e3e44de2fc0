import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useService } from '../helpers/service.js';

const REQUESTS_PER_CALLER = 5;

/** A JWT-shaped token no one signed, naming an issuer nobody registered. */
function junkToken(n: number): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', kid: `k${n}` })}.${part({ iss: `https://junk-${n}.example.com`, sub: 'x', exp: 4_000_000_000 })}.c2ln`;
}

describe('tokens never verified before are counted against the IP first', () => {
  const t = useService({ env: { RATE_REQUESTS_PER_CALLER: String(REQUESTS_PER_CALLER) } });

  it('a flood of junk tokens from one address gets 429 once the limit is spent', async () => {
    for (let i = 0; i < REQUESTS_PER_CALLER; i += 1) {
      assert.equal((await t.api.get('/account', { token: i % 2 === 0 ? junkToken(i) : `garbage-${i}` })).status, 401);
    }
    const limited = await t.api.get('/account', { token: junkToken(99) });
    assert.equal(limited.status, 429);
    assert.ok(limited.headers.get('retry-after'), 'says when to come back');
  });
});
