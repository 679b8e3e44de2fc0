import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { auditEntryHash, GENESIS_HASH } from '../../src/audit/chain.js';
import type { AuditEntry, AuditInput } from '../../src/audit/record.js';
import type { AppContext } from '../../src/context.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { assertTreeAndChains, recordAt } from './helpers.js';

/**
 * PostgreSQL appends an entry in the database (migration 0230: the chain hash, the Merkle nodes
 * and the head computed in SQL), SQLite in TypeScript. The same entries, recorded on either
 * engine, must be the same bytes: this sequence's hashes are fixed below, and each engine's run
 * must write exactly them, the tree the TypeScript Frontier builds, and a trail the verifier
 * passes. Parties and messages hold what JSON escapes (quotes, backslashes, control characters)
 * and what it does not (non-ASCII, U+2028, astral characters).
 */

const LOCK = 'lock-append-in-database';
const OTHER_LOCK = 'lock-append-in-database-2';
const ANN = { id: 'user-ann', email: 'ann"q@example.com', name: 'Ann \\ O\'Neil\n\t\u0001\u007f é 😀 \u2028' };
const BOB = { id: 'user-bob', email: 'bob@example.com', name: null };

const SEQUENCE: Array<{ at: number; input: AuditInput }> = [
  { at: 1_700_000_000, input: { lockId: LOCK, type: 'OWNER_ASSIGNED', actorUserId: ANN.id } },
  { at: 1_700_000_001.25, input: { lockId: LOCK, type: 'LOCK_SHARED', actorUserId: ANN.id, subjectUserId: BOB.id, details: { role: 'USER', z: [1, 'two', null], a: { 'ü': '\u0000"' } } } },
  { at: 1_700_000_002, input: { lockId: OTHER_LOCK, type: 'DOOR_UNLOCK', actorUserId: BOB.id, client: { actorIp: '2001:db8::1', userAgent: { type: 'ios', version: '3.1' } } } },
  { at: 1_700_000_003, input: { lockId: LOCK, type: 'DOOR_UNLOCK', actorUserId: BOB.id, rejected: true, message: 'outside "window" \\ 😀' } },
  { at: 1_700_000_004, input: { lockId: LOCK, type: 'DOOR_LOCK', actorUserId: null } },
  { at: 1_700_000_005, input: { lockId: LOCK, type: 'DOOR_UNLOCK', actorUserId: 'user-gone', noReply: true, client: { actorIp: null, userAgent: { type: 'web', version: null } } } },
  { at: 1_700_000_006, input: { lockId: OTHER_LOCK, type: 'DOOR_LOCK', actorUserId: null, details: {} } },
];

/** Each lock's last hash after SEQUENCE, computed once: both engines must write exactly it. */
const EXPECTED_LAST_HASHES = {
  [LOCK]: 'd15b692251f884e0bf6beb18ec944b1ede306022599befd66635ae714ad0f0ed',
  [OTHER_LOCK]: 'd677357fd3d4f2b6a152792ad13910b9475d4c156ed71e0fbc8fada21f52a3ae',
};

describe('an audit entry appended in the database (PostgreSQL) or in TypeScript (SQLite)', () => {
  let t: TestService;
  let ctx: AppContext;
  before(async () => {
    t = await startTestService();
    ctx = t.service.ctx;
    for (const user of [ANN, BOB]) {
      await ctx.db.kysely.insertInto('users').values({ id: user.id, namespace: 'direct', email: user.email, email_normalised: user.email.toLowerCase(), display_name: user.name, created: 0, updated: 0 } as never).execute();
    }
  });
  after(async () => {
    await t?.close();
  });

  it('writes the same chain hashes, Merkle nodes and head on both engines, which the verifier passes', async () => {
    const recorded: AuditEntry[] = [];
    for (const { at, input } of SEQUENCE) recorded.push(await recordAt(ctx, at, input));

    // The chain, recomputed here from what was handed in and who the parties are.
    const last = new Map<string, string>();
    for (const [i, entry] of recorded.entries()) {
      const { at, input } = SEQUENCE[i]!;
      const party = (id: string | null | undefined) => [ANN, BOB].find((user) => user.id === id);
      const previous = last.get(input.lockId) ?? GENESIS_HASH;
      const expected = auditEntryHash(previous, {
        version: 3, lockId: input.lockId, timestamp: at, type: input.type, actorUserId: input.actorUserId, subjectUserId: input.subjectUserId ?? null,
        actorEmail: party(input.actorUserId)?.email ?? null, actorDisplayName: party(input.actorUserId)?.name ?? null,
        subjectEmail: party(input.subjectUserId)?.email ?? null, subjectDisplayName: party(input.subjectUserId)?.name ?? null,
        actorIp: input.client?.actorIp ?? null, userAgent: input.client?.userAgent ?? null, rejected: input.rejected === true,
        message: entry.message, details: input.details ?? null,
      });
      assert.equal(entry.previousHash, previous, `entry ${i}'s previous hash`);
      assert.equal(entry.hash, expected, `entry ${i}'s hash`);
      last.set(input.lockId, entry.hash);
    }
    // Fixed: a change to either engine's hashing changes these (the same on SQLite and PostgreSQL).
    assert.deepEqual(Object.fromEntries(last), EXPECTED_LAST_HASHES);

    const rows = await ctx.db.kysely.selectFrom('audit_entries').select(['seq', 'hash', 'prev_hash', 'actor_email', 'actor_display_name', 'subject_display_name', 'details', 'message', 'timestamp']).orderBy('seq').execute();
    const ours = rows.filter((row) => recorded.some((entry) => entry.seq === row.seq));
    assert.deepEqual(ours.map((row) => [row.hash, row.prev_hash, row.actor_email, row.actor_display_name, row.subject_display_name, row.message, row.timestamp]),
      recorded.map((entry) => [entry.hash, entry.previousHash, entry.actorEmail, entry.actorDisplayName, entry.subjectDisplayName, entry.message, entry.timestamp]));

    // The whole log's tree, as TypeScript's Frontier builds it from the entries' hashes, and every chain.
    await assertTreeAndChains(ctx);
  });
});
