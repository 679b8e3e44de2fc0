import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { recordAuditNow } from '../../src/audit/record.js';
import { claimLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';

/**
 * The public checkpoint routes read what the signer signed; they never sign themselves. Only the
 * after-commit hook signs, at most once per AUDIT_CHECKPOINT_INTERVAL_MS, whoever asks how often.
 */
describe('audit checkpoints: anonymous reads sign nothing', () => {
  const t = useService({ env: { AUDIT_CHECKPOINT_INTERVAL_MS: '3600000', AUDIT_PUBLIC_CHECKPOINT_INTERVAL_S: '0' }, withUser: true });
  let lockId: string;
  const checkpoints = async () => Number((await t.service.ctx.db.kysely.selectFrom('audit_checkpoints').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  before(async () => {
    ({ id: lockId } = await claimLock(t, t.user));
  });

  it('GET /audit/checkpoint and /audit/checkpoint/key leave the signing to the interval', async () => {
    // Entries recorded within the interval wait for its end (an hour here).
    for (let i = 0; i < 3; i++) await recordAuditNow(t.service.ctx, { lockId, type: 'DOOR_UNLOCK', actorUserId: t.user.userId, details: { i } });
    const signed = await checkpoints();
    const size = Number((await t.service.ctx.db.kysely.selectFrom('audit_tree_head').select('size').executeTakeFirstOrThrow()).size);
    for (let i = 0; i < 5; i++) {
      const res = await t.api.get('/audit/checkpoint');
      assert.ok(res.status === 200 || res.status === 404, res.text);
      if (res.status === 200) assert.ok(res.body.treeSize < size, 'the newest entries are not signed before the interval ends');
      assert.equal((await t.api.get('/audit/checkpoint/key')).status, 200);
    }
    assert.equal(await checkpoints(), signed);
  });
});
