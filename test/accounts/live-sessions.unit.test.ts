import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { CallerUser } from '../../src/accounts/caller.js';
import { LiveSessions } from '../../src/accounts/live-sessions.js';
import { IN_TRANSACTION, openDatabase } from '../../src/db/database.js';

const user = (id: string, displayName = 'Ada'): CallerUser => ({
  id, namespace: 'direct', email: `${id}@example.com`, email_verified: 0, telephone: null, telephone_verified: 0, display_name: displayName, public_key: null,
});

describe('LiveSessions', () => {
  it('finds a kept session until it expires, and only for its own user', () => {
    const sessions = new LiveSessions();
    sessions.keep(sessions.readStarted(), 's1', 100, user('u1'));
    assert.equal(sessions.find('u1', 's1', 99)?.id, 'u1');
    assert.equal(sessions.find('u1', 's1', 100), undefined, 'expired');
    assert.equal(sessions.find('u2', 's1', 50), undefined, 'another user');
    assert.equal(sessions.find('u1', 's2', 50), undefined, 'another session');
  });

  it('forgets every session of a user at once', () => {
    const sessions = new LiveSessions();
    sessions.keep(sessions.readStarted(), 's1', 100, user('u1'));
    sessions.keep(sessions.readStarted(), 's2', 100, user('u1'));
    sessions.keep(sessions.readStarted(), 's3', 100, user('u2'));
    sessions.forget('u1');
    assert.equal(sessions.find('u1', 's1', 50), undefined);
    assert.equal(sessions.find('u1', 's2', 50), undefined);
    assert.equal(sessions.find('u2', 's3', 50)?.id, 'u2', 'other users are kept');
  });

  it('does not keep a read that was under way when a change was forgotten', () => {
    const sessions = new LiveSessions();
    const started = sessions.readStarted();
    sessions.forget('u1'); // the change committed while the read ran: what it read may be stale
    sessions.keep(started, 's1', 100, user('u1', 'stale'));
    assert.equal(sessions.find('u1', 's1', 50), undefined);
  });

  it('a later read of the same user replaces the row kept for all their sessions', () => {
    const sessions = new LiveSessions();
    sessions.keep(sessions.readStarted(), 's1', 100, user('u1', 'old'));
    sessions.keep(sessions.readStarted(), 's2', 100, user('u1', 'new'));
    assert.equal(sessions.find('u1', 's1', 50)?.display_name, 'new');
  });
});

describe('SQLite readRowNow', () => {
  it('refuses to read inside an open transaction, whose changes are not committed yet', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'latchkey-readnow-'));
    const database = openDatabase({ kind: 'sqlite', file: join(dir, 'db.sqlite') });
    try {
      assert.deepEqual(database.readRowNow!('SELECT ? AS one', [1]), { one: 1 });
      await database.kysely.transaction().execute(async () => {
        assert.equal(database.readRowNow!('SELECT ? AS one', [1]), IN_TRANSACTION);
      });
      assert.deepEqual(database.readRowNow!('SELECT ? AS one', [1]), { one: 1 });
    } finally {
      await database.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
