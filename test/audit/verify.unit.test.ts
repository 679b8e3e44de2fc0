import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GENESIS_HASH, auditEntryHash, verifyChain } from '../../src/audit/chain.js';
import type { AuditRow } from '../../src/audit/queries.js';
import { toChainedEntry } from '../../src/audit/verify.js';

/** A row as recordAudit stores it. */
function storedRow(overrides: Partial<AuditRow> = {}): AuditRow {
  const fields = {
    lockId: 'lock-1', timestamp: 1_700_000_000.25, type: 'DOOR_UNLOCK', actorUserId: 'user-1', subjectUserId: null,
    rejected: true, message: 'unlock refused: outside permitted times', details: { reason: 'time', nested: { b: 1, a: 2 } },
  };
  const hash = auditEntryHash(null, fields);
  return {
    seq: 1, id: 'entry-1', lock_id: fields.lockId, timestamp: fields.timestamp, type: fields.type, actor_user_id: fields.actorUserId,
    subject_user_id: null, rejected: 1, message: fields.message, details: JSON.stringify(fields.details), prev_hash: GENESIS_HASH, hash, ...overrides,
  };
}

describe('toChainedEntry', () => {
  it('reads a stored row back into the form that was hashed', () => {
    const entry = toChainedEntry(storedRow());
    assert.ok(entry);
    assert.equal(verifyChain([entry]).ok, true);
  });

  it('reads null details as absent', () => {
    const fields = { lockId: 'l', timestamp: 1, type: 'DOOR_LOCK', actorUserId: null, subjectUserId: null, rejected: false, message: 'lock locked' };
    const row = storedRow({ lock_id: 'l', timestamp: 1, type: 'DOOR_LOCK', actor_user_id: null, rejected: 0, message: 'lock locked', details: null, hash: auditEntryHash(null, fields) });
    assert.equal(verifyChain([toChainedEntry(row)!]).ok, true);
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
