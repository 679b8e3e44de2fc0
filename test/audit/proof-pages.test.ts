import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { recordAuditNow } from '../../src/audit/record.js';
import { claimLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { assertError } from '../accounts/support.js';

const PAGE = 100;

describe('GET /device/{lockId}/log/proof pages explicitly (never a silent cut at 100)', () => {
  const t = useService({ env: { AUDIT_CHECKPOINT_INTERVAL_MS: '0' }, withUser: true });
  let lockId: string;
  let total: number;
  const proofs = (query: string) => t.api.get(`/device/${lockId}/log/proof?${query}`, { token: t.user.authToken });

  before(async () => {
    ({ id: lockId } = await claimLock(t, t.user));
    for (let i = 0; i < PAGE + 4; i++) await recordAuditNow(t.service.ctx, { lockId, type: 'DOOR_UNLOCK', actorUserId: t.user.userId, details: { i } });
    total = (await t.api.get(`/device/${lockId}/log?limit=1000`, { token: t.user.authToken, version: 2 })).body.length;
    assert.ok(total > PAGE, `${total} entries`);
  });

  it('a start/end range beyond one page says where it stopped, and following `next` gives the rest once each', async () => {
    const range = `start=0&end=${Math.ceil(Date.now() / 1000) + 60}`;
    const first = await proofs(range);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.entries.length, PAGE);
    assert.equal(typeof first.body.next, 'string', 'the page says the range goes on');

    const second = await proofs(`${range}&cursor=${first.body.next}&treeSize=${first.body.treeSize}`);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.next, null, 'the last page says so');
    assert.equal(second.body.treeSize, first.body.treeSize);
    const ids = [...first.body.entries, ...second.body.entries].map((e: { id: string }) => e.id);
    assert.equal(ids.length, total);
    assert.equal(new Set(ids).size, total, 'no entry twice');
    // Newest first across the pages.
    const times = [...first.body.entries, ...second.body.entries].map((e: { leafIndex: number }) => e.leafIndex);
    assert.deepEqual(times, [...times].sort((a, b) => b - a));
  });

  it('a limit above 100 is lowered to 100 and says so with `next`; a page that holds the rest has next null', async () => {
    const res = await proofs('limit=1000');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.entries.length, PAGE);
    assert.equal(typeof res.body.next, 'string');
    const small = await proofs(`limit=${total}`);
    assert.equal(small.body.entries.length, PAGE);
    const exact = await proofs(`limit=5&cursor=${(await proofs(`limit=${total - 5}`)).body.next}`);
    assert.equal(exact.body.entries.length, 5);
    assert.equal(exact.body.next, null);
  });

  it('the OpenAPI document declares the cursor and `next`', async () => {
    const route = (await t.api.get('/openapi.json')).body.paths['/device/{lockId}/log/proof'].get;
    assert.ok(route.parameters.some((p: { name: string; in: string }) => p.name === 'cursor' && p.in === 'query'));
    const body = route.responses['200'].content['application/json'].schema;
    assert.ok(body.required.includes('next'), JSON.stringify(body.required));
    assert.ok(body.properties.next);
  });

  it('a malformed cursor is a 400', async () => {
    for (const cursor of ['abc', '-1', '1.5', '9'.repeat(16)]) assertError(await proofs(`cursor=${cursor}`), 400);
  });
});
