import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUDIT_TYPES, MAX_MESSAGE_LENGTH, SUBJECT_TYPES, V1_TYPES, auditMessage, hasSubject, isAuditType } from '../../src/audit/types.js';

describe('audit types', () => {
  it('lists the spec’s eleven types and the SDK’s four more, seven of them in v1', () => {
    assert.equal(AUDIT_TYPES.length, 15);
    assert.deepEqual(AUDIT_TYPES.slice(11), ['SETTING_CHANGED', 'TILE_ASSOCIATED', 'TILE_DISASSOCIATED', 'DEVICE_DECOMMISSIONED']);
    assert.deepEqual([...V1_TYPES], ['DOOR_OPEN', 'DOOR_CLOSE', 'DOOR_UNLOCK', 'DOOR_LOCK', 'OWNER_ASSIGNED', 'DEVICE_CONNECTED', 'DEVICE_DISCONNECTED']);
    assert.deepEqual(AUDIT_TYPES.filter((t) => !V1_TYPES.includes(t)), ['LOCK_SHARED', 'LOCK_REVOKED', 'USER_PROMOTED', 'USER_DEMOTED', 'SETTING_CHANGED', 'TILE_ASSOCIATED', 'TILE_DISASSOCIATED', 'DEVICE_DECOMMISSIONED']);
  });

  it('knows which types have a subject', () => {
    for (const type of SUBJECT_TYPES) assert.equal(hasSubject(type), true);
    assert.equal(hasSubject('DOOR_UNLOCK'), false);
    assert.equal(hasSubject('OWNER_ASSIGNED'), false);
  });

  it('recognises audit types and nothing else', () => {
    assert.equal(isAuditType('DOOR_LOCK'), true);
    assert.equal(isAuditType('door_lock'), false);
    assert.equal(isAuditType('DEVICE_LOCKED'), false);
  });
});

describe('auditMessage', () => {
  it('describes the event when no message is given', () => {
    assert.equal(auditMessage('DOOR_UNLOCK', false), 'lock unlocked');
    assert.equal(auditMessage('LOCK_SHARED', false, '  '), 'access shared');
  });

  it('keeps a given message', () => {
    assert.equal(auditMessage('DOOR_UNLOCK', false, 'unlocked by button'), 'unlocked by button');
  });

  it('always says "refused" for a refusal, with the reason when given', () => {
    assert.equal(auditMessage('DOOR_UNLOCK', true), 'unlock refused');
    assert.equal(auditMessage('DOOR_UNLOCK', true, 'outside permitted times'), 'unlock refused: outside permitted times');
    assert.equal(auditMessage('LOCK_SHARED', true, 'caller is not an admin'), 'share refused: caller is not an admin');
  });

  it('bounds a runaway message', () => {
    assert.equal(auditMessage('DOOR_LOCK', true, 'x'.repeat(5000)).length, MAX_MESSAGE_LENGTH);
  });
});
