import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GENESIS_HASH, auditEntryHash, verifyChain } from '../../src/audit/chain.js';
import type { AuditRow } from '../../src/audit/queries.js';
import { toChainedEntry } from '../../src/audit/verify.js';

/** A row as recordAudit stores it (format 2). */
function storedRow(overrides: Partial<AuditRow> = {}): AuditRow {
  const fields = {
    version: 2 as const, lockId: 'lock-1', timestamp: 1_700_000_000.25, type: 'DOOR_UNLOCK', actorUserId: 'user-1', subjectUserId: null,
    actorEmail: 'ann@example.com', actorDisplayName: 'Ann', subjectEmail: null, subjectDisplayName: null,
    rejected: true, message: 'unlock refused: outside permitted times', details: { reason: 'time', nested: { b: 1, a: 2 } },
  };
  const hash = auditEntryHash(null, fields);
  return {
    seq: 1, id: 'entry-1', lock_id: fields.lockId, timestamp: fields.timestamp, type: fields.type, actor_user_id: fields.actorUserId,
    subject_user_id: null, actor_email: fields.actorEmail, actor_display_name: fields.actorDisplayName, subject_email: null, subject_display_name: null,
    rejected: 1, message: fields.message, details: JSON.stringify(fields.details), prev_hash: GENESIS_HASH, hash, hash_version: 2,
    actor_ip: null, user_agent_type: null, user_agent_version: null, ...overrides,
  };
}

/** A row recorded before migration 0014 (format 1), its four columns filled in by the migration. */
function formatOneRow(overrides: Partial<AuditRow> = {}): AuditRow {
  const fields = { version: 1 as const, lockId: 'l', timestamp: 1, type: 'DOOR_LOCK', actorUserId: 'user-1', subjectUserId: null, rejected: false, message: 'lock locked' };
  return storedRow({ lock_id: 'l', timestamp: 1, type: 'DOOR_LOCK', rejected: 0, message: 'lock locked', details: null, hash: auditEntryHash(null, fields), hash_version: 1, ...overrides });
}

describe('toChainedEntry', () => {
  it('reads a stored row back into the form that was hashed', () => {
    const entry = toChainedEntry(storedRow());
    assert.ok(entry);
    assert.equal(verifyChain([entry]).ok, true);
  });

  it('reads null details as absent', () => {
    const fields = { version: 2 as const, lockId: 'l', timestamp: 1, type: 'DOOR_LOCK', actorUserId: null, subjectUserId: null, actorEmail: null, actorDisplayName: null, subjectEmail: null, subjectDisplayName: null, rejected: false, message: 'lock locked' };
    const row = storedRow({ lock_id: 'l', timestamp: 1, type: 'DOOR_LOCK', actor_user_id: null, actor_email: null, actor_display_name: null, rejected: 0, message: 'lock locked', details: null, hash: auditEntryHash(null, fields) });
    assert.equal(verifyChain([toChainedEntry(row)!]).ok, true);
  });

  it('reads a row by its hash_version: a format-1 row verifies whatever its four recorded columns hold', () => {
    assert.equal(verifyChain([toChainedEntry(formatOneRow())!]).ok, true);
    assert.equal(verifyChain([toChainedEntry(formatOneRow({ actor_email: 'changed@example.com', actor_display_name: null }))!]).ok, true);
    assert.equal(verifyChain([toChainedEntry(formatOneRow({ hash_version: 2 }))!]).ok, false);
    assert.equal(verifyChain([toChainedEntry(storedRow({ hash_version: 1 }))!]).ok, false);
    assert.equal(verifyChain([toChainedEntry(storedRow({ hash_version: 3 }))!]).ok, false);
  });

  it("lets a format-2 row's recorded email or display name fail the hash check", () => {
    for (const change of [{ actor_email: 'changed@example.com' }, { actor_display_name: 'Anne' }, { actor_email: null }, { subject_email: 'x@example.com' }, { subject_display_name: 'X' }]) {
      assert.equal(verifyChain([toChainedEntry(storedRow(change))!]).ok, false, JSON.stringify(change));
    }
  });

  it('makes a flag other than 0/1 fail the hash check', () => {
    const entry = toChainedEntry(storedRow({ rejected: 2 as never }));
    assert.ok(entry);
    assert.equal(verifyChain([entry]).ok, false);
  });

  it('returns null for details that are not JSON', () => {
    assert.equal(toChainedEntry(storedRow({ details: '{not json' })), null);
  });

  it('lets a changed field fail the hash check', () => {
    assert.equal(verifyChain([toChainedEntry(storedRow({ message: 'lock unlocked' }))!]).ok, false);
    assert.equal(verifyChain([toChainedEntry(storedRow({ rejected: 0 }))!]).ok, false);
  });
});
