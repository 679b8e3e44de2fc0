import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { startService, type RunningService } from '../../src/server.js';
import { createUser } from '../helpers/factories.js';
import { startTestService, type TestService, TEST_SERVICE_OPTIONS } from '../helpers/service.js';

/** Instances with different BASE_URLs refuse each other's tokens; the one refusing says why, once. */
describe('an instance with another BASE_URL', () => {
  let first: TestService;
  let second: RunningService;
  const lines: string[] = [];
  before(async () => {
    first = await startTestService();
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => void (lines.push(chunk.toString()), done()) });
    second = await startService({ ...first.config, port: 0, baseUrl: 'http://elsewhere.test' }, { ...TEST_SERVICE_OPTIONS, logger: pino({ level: 'warn' }, sink) });
  });
  after(async () => {
    await second?.close();
    await first?.close();
  });

  it('refuses a token issued by the first (401) and warns once that BASE_URL differs', async () => {
    const user = await createUser(first.api);
    for (let i = 0; i < 2; i += 1) {
      const res = await fetch(`${second.url}/account`, { headers: { authorization: `Bearer ${user.authToken}` } });
      assert.equal(res.status, 401);
    }
    const warnings = lines.filter((line) => line.includes('BASE_URL must be identical'));
    assert.equal(warnings.length, 1, lines.join(''));
    assert.equal(JSON.parse(warnings[0]!).issuer, first.config.baseUrl);
  });

  it('does not warn for a token signed by someone else', async () => {
    const before = lines.length;
    const forged = `${Buffer.from(JSON.stringify({ alg: 'EdDSA', kid: '00000000-0000-4000-8000-000000000000' })).toString('base64url')}.${Buffer.from(JSON.stringify({ iss: 'http://forged.test', sub: 'x' })).toString('base64url')}.AAAA`;
    assert.equal((await fetch(`${second.url}/account`, { headers: { authorization: `Bearer ${forged}` } })).status, 401);
    assert.equal(lines.slice(before).filter((line) => line.includes('BASE_URL must be identical')).length, 0);
  });
});
