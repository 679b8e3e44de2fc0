import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyWebhookDeliveries, type ReceivedWebhook } from '../../src/client/webhooks.js';
import { latchkey } from '../helpers/cli.js';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock, revokeLock, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/** Issue 32 point 5: each delivery proves its entry is in the signed log; the verifier finds what is missing. */
describe('webhook verify', () => {
  let t: TestService;
  let owner: TestUser;
  let receiver: WebhookReceiver;
  let dir: string;

  before(async () => {
    t = await startTestService({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_POLL_MS: '50' });
    owner = await createUser(t.api);
    receiver = await startWebhookReceiver();
    dir = await mkdtemp(join(tmpdir(), 'latchkey-webhook-verify-'));
  });
  after(async () => {
    await receiver.stop();
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('checks signatures and proofs, and reports a delivery that never arrived as a gap in the lock\'s chain', async () => {
    const lock = await claimLock(t, owner);
    const hook = await t.api.post('/webhook', { token: owner.authToken, body: { url: receiver.url, lockIds: [lock.id] } });
    assert.equal(hook.status, 201);
    const guest = await createUser(t.api);
    await shareLock(t, lock.id, owner, guest.userId);
    await revokeLock(t, lock.id, owner, [guest.userId]);
    await shareLock(t, lock.id, owner, guest.userId);
    await revokeLock(t, lock.id, owner, [guest.userId]);
    const got = await receiver.until((r) => (r.accepted.length >= 4 ? r.accepted.slice(0, 4) : undefined), 'four deliveries');
    const kept: ReceivedWebhook[] = got.map((d) => ({ headers: d.headers, body: d.body }));
    const verifierKey = (await t.api.get('/audit/checkpoint/key', { token: owner.authToken })).body.verifierKey as string;
    const options = { secrets: [hook.body.secret as string], verifierKey };

    const whole = verifyWebhookDeliveries(kept, { ...options, checkTimestamp: true });
    assert.deepEqual(whole.deliveries.map((d) => d.problems), [[], [], [], []]);
    assert.deepEqual(whole.gaps, []);
    assert.equal(whole.ok, true);

    // The second never reached the receiver (dropped on the way, or suppressed): the third's link shows it.
    const suppressed = verifyWebhookDeliveries([kept[0]!, kept[2]!, kept[3]!, kept[0]!], options);
    assert.equal(suppressed.ok, false);
    assert.equal(suppressed.gaps.length, 1);
    const entryOf = (i: number) => JSON.parse(kept[i]!.body).data.entry as { id: string; hash: string };
    assert.deepEqual(suppressed.gaps[0], { lockId: lock.id, afterEntryId: entryOf(0).id, beforeEntryId: entryOf(2).id, missingHash: entryOf(1).hash });

    // A body changed on the way, a wrong secret, a proof that leads elsewhere: each named.
    const changed = { ...kept[0]!, body: kept[0]!.body.replace('"access.shared"', '"access.revoked"') };
    assert.deepEqual(verifyWebhookDeliveries([changed], options).deliveries[0]!.problems, ['the signature is not valid for any secret given']);
    assert.deepEqual(verifyWebhookDeliveries([kept[0]!], { ...options, secrets: [`whsec_${Buffer.alloc(32, 7).toString('base64')}`] }).deliveries[0]!.problems, ['the signature is not valid for any secret given']);
    const event = JSON.parse(kept[1]!.body);
    event.data.entry.message = 'nothing happened';
    const forged = verifyWebhookDeliveries([{ headers: kept[1]!.headers, body: JSON.stringify(event) }], options).deliveries[0]!.problems;
    assert.ok(forged.includes('message is not what was hashed'), forged.join('; '));

    // The command line, on the file a receiver keeps.
    const file = join(dir, 'deliveries.jsonl');
    const secretFile = join(dir, 'secret');
    await writeFile(secretFile, `${hook.body.secret}\n`, { mode: 0o600 });
    const run = async (deliveries: ReceivedWebhook[]) => {
      await writeFile(file, deliveries.map((d) => JSON.stringify(d)).join('\n'));
      const { code: status, stdout } = await latchkey(['webhook', 'verify', '--deliveries', file, '--secret-file', secretFile, '--key', verifierKey], {});
      return { status, lines: stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>) };
    };
    const good = await run(kept);
    assert.equal(good.status, 0);
    assert.deepEqual(good.lines, [{ ok: true, deliveries: 4, entries: 4, gaps: 0 }]);
    const gap = await run([kept[0]!, kept[2]!, kept[3]!]);
    assert.equal(gap.status, 1);
    assert.deepEqual(gap.lines.map((l) => l.problem ?? 'summary'), ['gap', 'summary']);
    assert.equal(gap.lines[0]!.beforeEntryId, entryOf(2).id);
  });
});
