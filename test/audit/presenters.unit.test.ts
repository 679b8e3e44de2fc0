import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toPage } from '../../src/audit/logs.js';
import { presentLockEntryV1, presentLockEntryV2, presentUserEntry } from '../../src/audit/presenters.js';
import { mergeNewestFirst, type LockLogRow, type UserLogRow } from '../../src/audit/queries.js';

const base = {
  seq: 7, id: 'e7', lock_id: 'lock-1', timestamp: 1_700_000_000.5, type: 'LOCK_SHARED', actor_user_id: 'admin-1', subject_user_id: 'user-2',
  rejected: 0 as const, message: 'access shared', details: '{"role":"USER"}', prev_hash: '0'.repeat(64), hash: 'a'.repeat(64), hash_version: 2,
  actor_email: 'admin@example.com', actor_display_name: 'Admin', subject_email: 'user@example.com', subject_display_name: null,
  actor_ip: null, user_agent_type: null, user_agent_version: null,
};

describe('lock log presenters', () => {
  const row: LockLogRow = base;

  it('v1 has exactly timestamp, type, user and message', () => {
    assert.deepEqual(presentLockEntryV1(row), { timestamp: 1_700_000_000.5, type: 'LOCK_SHARED', user: 'admin-1', message: 'access shared' });
  });

  it('v2 adds the actor’s email and display name, and the user-audit fields', () => {
    assert.deepEqual(presentLockEntryV2(row), {
      timestamp: 1_700_000_000.5, type: 'LOCK_SHARED', user: 'admin-1', email: 'admin@example.com', displayName: 'Admin', message: 'access shared',
      deviceId: 'lock-1',
      issuer: { userId: 'admin-1', email: 'admin@example.com', displayName: 'Admin', ip: null },
      subject: { userId: 'user-2', email: 'user@example.com', displayName: null, ip: null },
      rejected: false,
      rejectionReason: null,
      userAgent: null,
    });
    // The client the actor used (format 3): the issuer's address and the SDK named by their User-Agent; never the subject's.
    const withClient = presentLockEntryV2({ ...row, actor_ip: '203.0.113.9', user_agent_type: 'KMP_SDK_JVM', user_agent_version: '1.2.3' });
    assert.equal(withClient.issuer?.ip, '203.0.113.9');
    assert.equal(withClient.subject?.ip, null);
    assert.deepEqual(withClient.userAgent, { type: 'KMP_SDK_JVM', version: '1.2.3' });
  });

  it('v2 names the lock as issuer of an event it reports itself, and gives a refusal its reason', () => {
    const reported = presentLockEntryV2({ ...row, type: 'DOOR_OPEN', actor_user_id: null, subject_user_id: null, actor_email: null, actor_display_name: null, rejected: 1, message: 'door open refused: jammed' });
    assert.deepEqual(reported.issuer, { userId: 'lock-1', email: null, displayName: null, ip: null });
    assert.equal(reported.subject, null);
    assert.equal(reported.user, null);
    assert.equal(reported.rejectionReason, 'door open refused: jammed');
  });
});

describe('user log presenter', () => {
  it('names issuer and subject for a type with a subject', () => {
    const row: UserLogRow = { ...base, rejected: 1 };
    assert.deepEqual(presentUserEntry({ ...row, actor_ip: '203.0.113.9' }, 'user-2'), {
      deviceId: 'lock-1', timestamp: 1_700_000_000.5, type: 'LOCK_SHARED', issuer: { userId: 'admin-1', ip: null }, subject: { userId: 'user-2', email: 'user@example.com' }, rejected: true,
      rejectionReason: 'access shared', userAgent: null,
    });
    // The log's own user's actions show their address; another's (an admin's) never do.
    assert.equal(presentUserEntry({ ...row, actor_ip: '203.0.113.9' }, 'admin-1').issuer.ip, '203.0.113.9');
  });

  it('leaves the subject out for other types', () => {
    const row: UserLogRow = { ...base, type: 'DOOR_UNLOCK', subject_user_id: null, subject_email: null, subject_display_name: null };
    assert.deepEqual(presentUserEntry(row, 'admin-1'), { deviceId: 'lock-1', timestamp: 1_700_000_000.5, type: 'DOOR_UNLOCK', issuer: { userId: 'admin-1', ip: null }, rejected: false, rejectionReason: null, userAgent: null });
  });
});

describe('mergeNewestFirst', () => {
  it('merges two newest-first pages, drops duplicates and keeps the limit', () => {
    const rows = (...seqs: number[]) => seqs.map((seq) => ({ seq, from: 'x' }));
    assert.deepEqual(mergeNewestFirst(rows(9, 5, 2), rows(8, 5, 1), 4).map((r) => r.seq), [9, 8, 5, 2]);
    assert.deepEqual(mergeNewestFirst([], rows(3), 10).map((r) => r.seq), [3]);
  });
});

describe('toPage', () => {
  it('defaults the limit to 100 and lowers it to 1000', () => {
    assert.deepEqual(toPage({}), { start: undefined, end: undefined, limit: 100 });
    assert.deepEqual(toPage({ start: 1, end: 2, limit: 5000 }), { start: 1, end: 2, limit: 1000 });
    assert.equal(toPage({ limit: 7 }).limit, 7);
  });

  it('asks for a whole start/end range when no limit is given', () => {
    assert.deepEqual(toPage({ start: 1, end: 2 }), { start: 1, end: 2, limit: 10_001, wholeRange: true });
    assert.deepEqual(toPage({ end: 2 }).wholeRange, true);
  });
});
