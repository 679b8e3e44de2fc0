import assert from 'node:assert/strict';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { auditEntryHash } from '../../src/audit/chain.js';
import { recordAuditNow } from '../../src/audit/record.js';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock, shareLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';
import * as rfc from './rfc9162.js';

/** Checks a signed note with the published key, by the C2SP rules, without the service's code. */
function openNote(note: string, vkey: string): { origin: string; size: number; root: Buffer } {
  const [, name, id, key] = /^([^+]+)\+([0-9a-f]{8})\+(.+)$/.exec(vkey) as unknown as [string, string, string, string];
  const raw = Buffer.from(key, 'base64');
  assert.equal(raw[0], 1, 'Ed25519 signed-note key');
  assert.equal(createHash('sha256').update(Buffer.concat([Buffer.from(`${name}\n`), raw])).digest().subarray(0, 4).toString('hex'), id);
  const [body, signatures] = note.split('\n\n') as [string, string];
  const line = signatures.split('\n').find((l) => l.startsWith(`\u2014 ${name} `))!;
  const signature = Buffer.from(line.split(' ')[2]!, 'base64');
  assert.equal(signature.subarray(0, 4).toString('hex'), id);
  const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.subarray(1).toString('base64url') }, format: 'jwk' });
  assert.ok(verify(null, Buffer.from(`${body}\n`), publicKey, signature.subarray(4)), 'signature valid');
  const [origin, size, root] = body.split('\n') as [string, string, string];
  return { origin, size: Number(size), root: Buffer.from(root, 'base64') };
}

describe('audit checkpoints and proofs over HTTP', () => {
  const t = useService({ env: { AUDIT_CHECKPOINT_INTERVAL_MS: '0', AUDIT_PUBLIC_CHECKPOINT_INTERVAL_S: '0' }, withUser: true });
  let outsider: TestUser;
  let member: TestUser;
  let lockId: string;

  /** Polls the latest checkpoint until it covers `size` entries (the signer runs after commit). */
  async function checkpointOf(size: number): Promise<{ checkpoint: string; treeSize: number; rootHash: string; verifierKey: string }> {
    return eventually(async () => {
      const res = await t.api.get('/audit/checkpoint');
      return res.status === 200 && res.body.treeSize >= size && res.body;
    }, `a checkpoint of ${size} entries`);
  }

  async function allLeaves(): Promise<Buffer[]> {
    const rows = await t.service.ctx.db.kysely.selectFrom('audit_tree_nodes as n').innerJoin('audit_entries as e', 'e.seq', 'n.entry_seq').select(['n.position', 'e.hash']).orderBy('n.position').execute();
    rows.forEach((r, i) => assert.equal(Number(r.position), i));
    return rows.map((r) => Buffer.from(r.hash, 'hex'));
  }

  before(async () => {
    outsider = await createUser(t.api);
    member = await createUser(t.api);
    ({ id: lockId } = await claimLock(t, t.user));
    await shareLock(t, lockId, t.user, member.userId, { role: 'USER' });
    for (let i = 0; i < 5; i++) await recordAuditNow(t.service.ctx, { lockId, type: 'DOOR_UNLOCK', actorUserId: t.user.userId, details: { i } });
  });

  it('publishes a checkpoint signed with the published key, over the tree of every entry (no auth)', async () => {
    const leaves = await allLeaves();
    const body = await checkpointOf(leaves.length);
    const key = await t.api.get('/audit/checkpoint/key');
    assert.equal(key.status, 200);
    assert.equal(key.body.verifierKey, body.verifierKey);
    assert.equal(key.body.origin, 'latchkey.test/audit');
    assert.equal(Buffer.from(key.body.publicKey, 'base64').length, 32);
    const opened = openNote(body.checkpoint, key.body.verifierKey);
    assert.equal(opened.origin, 'latchkey.test/audit');
    assert.equal(opened.size, body.treeSize);
    assert.deepEqual(opened.root, rfc.mth(leaves.slice(0, opened.size)));
    assert.equal(body.rootHash, opened.root.toString('base64'));
  });

  it("proves each entry of a lock's log to its admin, with proofs the RFC algorithm accepts", async () => {
    const leaves = await allLeaves();
    const { checkpoint, verifierKey } = await checkpointOf(leaves.length);
    const { size, root } = openNote(checkpoint, verifierKey);
    const res = await t.api.get(`/device/${lockId}/log/proof`, { token: t.user.authToken });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.treeSize, size);
    assert.ok(res.body.entries.length >= 7); // claim, share, five unlocks
    for (const entry of res.body.entries) {
      assert.equal(entry.lockId, lockId);
      // The entry carries every field its hash covers, in the format it names (docs/audit-log.md).
      assert.equal(entry.hashVersion, 3);
      const { id: _id, leafIndex: _leaf, proof: _proof, hash, previousHash, hashVersion, ...fields } = entry;
      assert.equal(auditEntryHash(previousHash, { ...fields, version: hashVersion }), hash, `entry ${entry.id} recomputed from its response`);
      const proof = (entry.proof as string[]).map((h) => Buffer.from(h, 'base64'));
      assert.ok(rfc.verifyInclusion(entry.leafIndex, size, rfc.leaf(Buffer.from(entry.hash, 'hex')), proof, root), `entry ${entry.id}`);
      // The preimage is what the hash covers, and says what the entry's fields say.
      assert.equal(createHash('sha256').update(entry.preimage, 'utf8').digest('hex'), entry.hash);
      const preimage = JSON.parse(entry.preimage);
      for (const field of ['lockId', 'timestamp', 'type', 'actorUserId', 'subjectUserId', 'rejected', 'message', 'previousHash']) assert.deepEqual(preimage[field], entry[field], field);
      assert.deepEqual(preimage.details ?? null, entry.details);
      const one = await t.api.get(`/audit/entries/${entry.id}/proof?treeSize=${size}`, { token: t.user.authToken });
      assert.equal(one.status, 200);
      assert.deepEqual(one.body.entry.proof, entry.proof);
    }
  });

  it('hides the proofs from non-members (404) and from members who may not read the log', async () => {
    const entry = (await t.api.get(`/device/${lockId}/log/proof`, { token: t.user.authToken })).body.entries[0];
    assert.equal((await t.api.get(`/device/${lockId}/log/proof`, { token: outsider.authToken })).status, 404);
    assert.equal((await t.api.get(`/audit/entries/${entry.id}/proof`, { token: outsider.authToken })).status, 404);
    assert.equal((await t.api.get(`/audit/entries/${entry.id}/proof`, { token: member.authToken })).status, 404);
    assert.equal((await t.api.get(`/device/${lockId}/log/proof`, { token: member.authToken })).status, 403);
    assert.equal((await t.api.get(`/audit/entries/${entry.id}/proof`)).status, 401);
    assert.equal((await t.api.get('/audit/entries/not-an-id/proof', { token: t.user.authToken })).status, 404);
  });

  it('proves that the log only grew between two checkpoints (no auth), and refuses sizes it cannot prove', async () => {
    const before = await checkpointOf((await allLeaves()).length);
    const first = openNote(before.checkpoint, before.verifierKey);
    for (let i = 0; i < 6; i++) await recordAuditNow(t.service.ctx, { lockId, type: 'DOOR_LOCK', actorUserId: null });
    const after = await checkpointOf(first.size + 6);
    const second = openNote(after.checkpoint, after.verifierKey);
    const res = await t.api.get(`/audit/proof/consistency?from=${first.size}&to=${second.size}`);
    assert.equal(res.status, 200, res.text);
    assert.ok(rfc.verifyConsistency(first.size, second.size, first.root, second.root, res.body.proof.map((h: string) => Buffer.from(h, 'base64'))));
    for (const query of ['from=0&to=3', `from=5&to=4`, `from=1&to=${second.size + 100}`, 'from=x&to=2']) {
      const bad = await t.api.get(`/audit/proof/consistency?${query}`);
      assert.equal(bad.status, 400, query);
      assert.equal(typeof bad.body.message, 'string');
    }
  });

  it('appends every checkpoint to the file outside the database', async () => {
    const { readFile } = await import('node:fs/promises');
    const text = await readFile(t.config.auditCheckpoint.file, 'utf8');
    const latest = await t.api.get('/audit/checkpoint');
    assert.ok(text.includes(latest.body.checkpoint));
  });

  it('documents the routes in the OpenAPI document', async () => {
    const doc = await t.api.get('/openapi.json');
    for (const path of ['/audit/checkpoint', '/audit/checkpoint/key', '/audit/proof/consistency', '/device/{lockId}/log/proof', '/audit/entries/{entryId}/proof']) assert.ok(doc.body.paths[path], path);
  });
});
