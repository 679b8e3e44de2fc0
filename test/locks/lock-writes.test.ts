import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { appendSlots } from '../../src/audit/record.js';
import type { AppContext } from '../../src/context.js';
import { recordState } from '../../src/lock-link/reports.js';
import { confirmCommand, pendingCommand } from '../../src/locks/command-life.js';
import { LockWrites, type LockWrite } from '../../src/locks/lock-writes.js';
import { errors } from '../../src/errors/catalogue.js';
import { consumeAndBegin } from '../../src/operations/replay.js';
import type { VerifiedOperation } from '../../src/operations/verify.js';
import type { LockState } from '../../src/device-protocol/payloads.js';
import { assertTreeAndChains } from '../audit/helpers.js';
import { TEST_DB } from '../helpers/database.js';
import { auditEntriesOf, provisionLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';

/**
 * PostgreSQL: the unlock path's writes (a command's beginning and confirmation, a state report)
 * made at the same moment share one statement of migration 0270's lock_writes and one commit
 * (src/locks/lock-writes.ts). What each call answers and writes is what it would alone.
 */

/** lock_writes statements `work` sends, counted on the driver (every statement goes through pg.Client#query). */
async function lockWriteStatementsDuring<T>(work: () => Promise<T>): Promise<{ result: T; statements: number }> {
  const query = pg.Client.prototype.query;
  let statements = 0;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
    if (text?.includes('from lock_writes(')) statements += 1;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    return { result: await work(), statements };
  } finally {
    pg.Client.prototype.query = query;
  }
}

/** lock_writes statements waiting for a lock in the database now. */
async function batchesWaiting(ctx: AppContext): Promise<number> {
  const { rows } = await sql<{ waits: number }>`select count(*) as waits from pg_stat_activity
    where datname = current_database() and wait_event_type = 'Lock' and query like '%lock_writes(%'`.execute(ctx.db.kysely);
  return Number(rows[0]!.waits);
}

describe('lock writes batched on PostgreSQL', { skip: TEST_DB === 'sqlite' && 'PostgreSQL only' }, () => {
  const t = useService({ withUser: true });

  const operation = (lockId: string, replayKey: string) => {
    const now = t.service.ctx.now();
    return { lock: { id: lockId }, replayKey, claims: { exp: now + 60 }, now, queued: undefined } as unknown as VerifiedOperation;
  };
  const report = (lockId: string, locked: boolean) => recordState(t.service.ctx, lockId, { locked, ts: t.service.ctx.now(), configVersion: 0 } as LockState);

  it('makes the writes of one moment in one statement, each as it would alone: markers, a token used twice refused, confirmations, reports in order', async () => {
    const ctx = t.service.ctx;
    const [begun, confirmed, relocked, twice] = await Promise.all([0, 1, 2, 3].map(() => provisionLock(t)));
    for (const lock of [begun!, confirmed!, relocked!, twice!]) await ctx.db.kysely.updateTable('locks').set({ locked: 1 }).where('id', '=', lock.id).execute();
    const now = ctx.now();
    const beginning = pendingCommand(begun!.id, t.user.userId, false, now, ctx.config.lockReplyTimeoutMs, randomUUID());
    const confirming = pendingCommand(confirmed!.id, t.user.userId, false, now, ctx.config.lockReplyTimeoutMs, randomUUID());
    const replayKey = randomUUID();

    const { result, statements } = await lockWriteStatementsDuring(() => Promise.allSettled([
      consumeAndBegin(ctx, operation(begun!.id, replayKey), beginning),
      consumeAndBegin(ctx, operation(begun!.id, replayKey), beginning),
      confirmCommand(ctx, confirming, { lockId: confirmed!.id, type: 'DOOR_UNLOCK', actorUserId: t.user.userId, details: { commandId: confirming.commandId } }),
      report(relocked!.id, false),
      // One lock's reports of one moment: recorded in the order they were made, the second chained to the first.
      report(twice!.id, false),
      report(twice!.id, true),
    ]));

    assert.equal(statements, 1, 'one lock_writes statement for the six calls');
    assert.deepEqual(result.map((settled) => (settled.status === 'fulfilled' ? settled.value : (settled.reason as { code?: unknown }).code)),
      [undefined, errors.jtiReused().code, undefined, ['DOOR_UNLOCK'], ['DOOR_UNLOCK'], ['DOOR_LOCK']]);

    const row = (id: string) => ctx.db.kysely.selectFrom('locks').select(['locked', 'pending_command_id', 'pending_target_locked']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual(await row(begun!.id), { locked: 1, pending_command_id: beginning.commandId, pending_target_locked: 0 });
    assert.equal((await ctx.db.kysely.selectFrom('used_operation_tokens').select('replay_key').where('lock_id', '=', begun!.id).execute()).length, 1);
    assert.equal((await row(confirmed!.id)).locked, 0);
    assert.equal((await row(relocked!.id)).locked, 0);
    assert.equal((await row(twice!.id)).locked, 1);

    const types = async (id: string) => (await auditEntriesOf(t, id)).map((entry) => `${entry.type}:${entry.actor_user_id === null ? 'nobody' : 'user'}`);
    assert.deepEqual(await types(begun!.id), []);
    assert.deepEqual(await types(confirmed!.id), ['DOOR_UNLOCK:user']);
    assert.deepEqual(await types(relocked!.id), ['DOOR_UNLOCK:nobody']);
    assert.deepEqual(await types(twice!.id), ['DOOR_UNLOCK:nobody', 'DOOR_LOCK:nobody']);
    const [first, second] = await ctx.db.kysely.selectFrom('audit_entries').select(['hash', 'prev_hash']).where('lock_id', '=', twice!.id).orderBy('seq').execute();
    assert.equal(second!.prev_hash, first!.hash);
    await assertTreeAndChains(ctx);
  });

  it('fails only the call whose write fails: the others of its batch are written, it writes nothing', async () => {
    const ctx = t.service.ctx;
    const [good, bad] = await Promise.all([provisionLock(t), provisionLock(t)]);
    for (const lock of [good!, bad!]) await ctx.db.kysely.updateTable('locks').set({ locked: 1 }).where('id', '=', lock.id).execute();
    const taken = (await ctx.db.kysely.selectFrom('audit_entries').select('id').executeTakeFirstOrThrow()).id;
    const confirm = (lockId: string, id?: string): LockWrite => {
      const { slots } = appendSlots(ctx, { lockId, type: 'DOOR_UNLOCK', actorUserId: t.user.userId });
      return { kind: 'confirm', locked: 0, storedAt: ctx.now(), entry: { ...slots, ...(id === undefined ? {} : { id }) } };
    };

    const { result, statements } = await lockWriteStatementsDuring(() => Promise.allSettled([
      ctx.lockWrites!.write(confirm(good!.id)),
      // An entry id already in the log: the batch's statement fails on audit_entries' key.
      ctx.lockWrites!.write(confirm(bad!.id, taken)),
    ]));

    assert.equal(statements, 3, 'the batch, then each call alone');
    assert.equal(result[0]!.status === 'fulfilled' && result[0].value.outcome, 'confirmed');
    assert.equal(result[1]!.status, 'rejected');
    assert.equal((result[1] as PromiseRejectedResult).reason.code, '23505');
    const locked = async (id: string) => (await ctx.db.kysely.selectFrom('locks').select('locked').where('id', '=', id).executeTakeFirstOrThrow()).locked;
    assert.equal(await locked(good!.id), 0);
    assert.equal(await locked(bad!.id), 1, 'the failed confirmation stored nothing');
    assert.equal((await auditEntriesOf(t, good!.id)).length, 1);
    assert.equal((await auditEntriesOf(t, bad!.id)).length, 0);
    await assertTreeAndChains(ctx);
  });

  it('keeps report_locked for an instance of the previous release: its decisions are report_locked_decision\'s, and it appends', async () => {
    const ctx = t.service.ctx;
    const { id } = await provisionLock(t);
    await ctx.db.kysely.updateTable('locks').set({ locked: 0 }).where('id', '=', id).execute();
    const { slots } = appendSlots(ctx, { lockId: id, type: 'DOOR_LOCK', actorUserId: null });
    const call = () => sql<{ outcome: string; seq: number | null }>`select outcome, seq from report_locked(${id}, 1, cast(${ctx.now()} as double precision), null, 60,
      null, null, null, null, null, false, ${slots.id}, cast(${slots.timestamp} as double precision), ${slots.type}, ${slots.message},
      ${slots.version}, cast(${slots.preimage} as text[]), false)`.execute(ctx.db.kysely);
    const { rows: [first] } = await call();
    assert.equal(first!.outcome, 'audited');
    assert.equal(typeof first!.seq, 'number');
    const { rows: [again] } = await call();
    assert.deepEqual(again, { outcome: 'unchanged', seq: null });
    assert.deepEqual((await auditEntriesOf(t, id)).map((entry) => entry.type), ['DOOR_LOCK']);
    await assertTreeAndChains(ctx);
  });

  it('begins and confirms one lock\'s command in one batch, in the order they were made', async () => {
    const ctx = t.service.ctx;
    const { id } = await provisionLock(t);
    await ctx.db.kysely.updateTable('locks').set({ locked: 1 }).where('id', '=', id).execute();
    const command = pendingCommand(id, t.user.userId, false, ctx.now(), ctx.config.lockReplyTimeoutMs, randomUUID());
    const { statements } = await lockWriteStatementsDuring(() => Promise.all([
      consumeAndBegin(ctx, operation(id, randomUUID()), command),
      confirmCommand(ctx, command, { lockId: id, type: 'DOOR_UNLOCK', actorUserId: t.user.userId, details: { commandId: command.commandId } }),
    ]));
    assert.equal(statements, 1);
    const row = await ctx.db.kysely.selectFrom('locks').select(['locked', 'pending_command_id']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { locked: 0, pending_command_id: command.commandId });
    assert.deepEqual((await auditEntriesOf(t, id)).map((entry) => entry.type), ['DOOR_UNLOCK']);
  });

  it('does not deadlock two instances\' batches beginning with one token while one also reports on the lock', async () => {
    const ctx = t.service.ctx;
    const { id } = await provisionLock(t);
    await ctx.db.kysely.updateTable('locks').set({ locked: 1 }).where('id', '=', id).execute();
    // Each instance has its batches: two of them, on one database.
    const [first, second] = [new LockWrites(ctx.db), new LockWrites(ctx.db)];
    const now = ctx.now();
    const replayKey = randomUUID();
    const begin = (): LockWrite => ({ kind: 'begin', lockId: id, replayKey, usedAt: now, keepUntil: now + 120, actorUserId: t.user.userId, locked: 0, until: now + 10, commandId: randomUUID() });
    const report: LockWrite = { kind: 'report', entry: appendSlots(ctx, { lockId: id, type: 'DOOR_UNLOCK', actorUserId: null }).slots, locked: 0, now, reportTs: null,
      overtakenWithin: 60, battery: null, jammed: null, tamper: null, doorOpen: null, lockdown: null, byOperation: false };
    // The lock's row held elsewhere, so that both batches are in the database before either ends, both
    // waiting for the row. Had a batch inserted its token before the row (as the first version did for
    // a beginning), the second would hold the token while waiting for the row the first holds, and the
    // first wait for that token: a deadlock, which PostgreSQL ends after a second by failing one batch.
    const { statements, result } = await lockWriteStatementsDuring(async () => {
      const holder = await ctx.db.kysely.connection().execute(async (connection) => {
        await sql`begin`.execute(connection);
        await sql`select id from locks where id = ${id} for update`.execute(connection);
        const fromFirst = Promise.all([first.write(report), first.write(begin())]);
        await eventually(async () => (await batchesWaiting(ctx)) >= 1, 'the first batch waiting for the row');
        const fromSecond = Promise.all([second.write(begin())]);
        await eventually(async () => (await batchesWaiting(ctx)) >= 2, 'the second batch waiting');
        await sql`commit`.execute(connection);
        return Promise.all([fromFirst, fromSecond]);
      });
      return holder;
    });
    assert.deepEqual(result.map((answers) => answers.map((answer) => answer.outcome)), [['audited', 'begun'], ['reused']]);
    assert.equal(statements, 2, 'each batch sent once: neither failed');
  });

  it('does not deadlock a batch beginning with a token and a writer that holds the row and then inserts the token (a LAN operation\'s report)', async () => {
    const ctx = t.service.ctx;
    const { id } = await provisionLock(t);
    const now = ctx.now();
    const replayKey = randomUUID();
    // recordOperationReport (src/operations/lock-reports.ts) locks the lock's row, then remembers the
    // token's replay key: the same token, sent to the lock on the LAN and to the service at once. A
    // batch that inserted the key before taking the row would wait for the row while that writer
    // waits for the key: a deadlock, which PostgreSQL ends after a second by failing one of them.
    const { result, statements } = await lockWriteStatementsDuring(() => ctx.db.kysely.connection().execute(async (connection) => {
      await sql`begin`.execute(connection);
      await sql`select id from locks where id = ${id} for update`.execute(connection);
      const begun = ctx.lockWrites!.write({ kind: 'begin', lockId: id, replayKey, usedAt: now, keepUntil: now + 120, actorUserId: t.user.userId, locked: 0, until: now + 10, commandId: randomUUID() });
      await eventually(async () => (await batchesWaiting(ctx)) >= 1, 'the batch waiting');
      await sql`insert into used_operation_tokens (lock_id, replay_key, used_at, expires_at) values (${id}, ${replayKey}, ${now}, ${now + 120})
        on conflict (lock_id, replay_key) do nothing`.execute(connection);
      await sql`commit`.execute(connection);
      return begun;
    }));
    assert.equal(result.outcome, 'reused', 'the key the LAN report remembered first');
    assert.equal(statements, 1);
    const row = await ctx.db.kysely.selectFrom('locks').select('pending_command_id').where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.pending_command_id, null, 'no marker for a token used already');
  });

  it('sends a replay key with half a surrogate pair as the driver sends text: with U+FFFD', async () => {
    const ctx = t.service.ctx;
    const { id } = await provisionLock(t);
    const now = ctx.now();
    const answer = await ctx.lockWrites!.write({ kind: 'begin', lockId: id, replayKey: 'key-\ud800', usedAt: now, keepUntil: now + 120, actorUserId: t.user.userId, locked: 0, until: now + 10, commandId: randomUUID() });
    assert.equal(answer.outcome, 'begun');
    const stored = await ctx.db.kysely.selectFrom('used_operation_tokens').select('replay_key').where('lock_id', '=', id).execute();
    assert.deepEqual(stored.map((row) => row.replay_key), ['key-\ufffd']);
  });
});
