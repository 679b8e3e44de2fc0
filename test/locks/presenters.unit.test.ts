import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pathId } from '../../src/ids/path-ids.js';
import { readPermittedAddresses, readUnlockBetween, readUsageRequirements } from '../../src/locks/json.js';
import { DEFAULT_LOCK_COLOUR, presentLock, presentSiteLock } from '../../src/locks/presenters.js';
import type { MemberLock } from '../../src/locks/queries.js';

function memberLock(overrides: Partial<MemberLock> = {}, member: Partial<MemberLock['member']> = {}): MemberLock {
  return {
    id: 'lock-1',
    name: 'Provisioned',
    site_id: null,
    owner_user_id: 'u1',
    claimed_at: 200,
    unlock_time: 7,
    permitted_addresses: '["10.0.0.0/8"]',
    default_name: null,
    usage_requirements: '{}',
    unlock_between: null,
    tx_beacon_rssi: -1,
    rx_beacon_rssi: -2,
    proximity_unlock: 0,
    delay: 3,
    locked: null,
    door_open: null,
    connected: 0,
    last_operation: null,
    config_version: 1,
    device_kind: null,
    device_capabilities: null,
    battery: null,
    jammed: null,
    tamper: null,
    direct_access: 0,
    direct_access_endpoints: null,
    created: 100,
    updated: 200,
    site_colour: null,
    member: { lockId: 'lock-1', userId: 'u1', role: 'USER', start: null, end: null, alias: null, favourite: false, hidden: false, colour: null, schedule: null, ...member },
    ...overrides,
  };
}

describe('presentLock', () => {
  it('names the lock by alias, then default name, then provisioned name', () => {
    assert.equal(presentLock(memberLock(), []).name, 'Provisioned');
    assert.equal(presentLock(memberLock({ default_name: 'Default' }), []).name, 'Default');
    assert.equal(presentLock(memberLock({ default_name: 'Default' }, { alias: 'Mine' }), []).name, 'Mine');
    assert.equal(presentLock(memberLock({ default_name: 'Default' }, { alias: 'Mine' }), []).settings.defaultName, 'Default');
  });

  it('picks the colour of the member, then the site, then the default', () => {
    assert.equal(presentLock(memberLock(), []).colour, DEFAULT_LOCK_COLOUR);
    assert.equal(presentLock(memberLock({ site_colour: '#111111' }), []).colour, '#111111');
    assert.equal(presentLock(memberLock({ site_colour: '#111111' }, { colour: '#222222' }), []).colour, '#222222');
  });

  it('omits `locked` while unknown and reports it once known', () => {
    assert.deepEqual(presentLock(memberLock(), []).state, { connected: false, duration: 7 });
    assert.deepEqual(presentLock(memberLock({ locked: 1, connected: 1 }), []).state, { locked: true, connected: true, duration: 7 });
    assert.deepEqual(presentSiteLock(memberLock({ locked: 0 }), []).state, { connected: false, locked: false });
    assert.ok(!('locked' in presentSiteLock(memberLock(), []).state));
  });

  it('falls back from the last operation to the claim, then the creation', () => {
    assert.equal(presentLock(memberLock({ last_operation: 300 }), []).lastOperation, 300);
    assert.equal(presentLock(memberLock(), []).lastOperation, 200);
    assert.equal(presentLock(memberLock({ claimed_at: null }), []).lastOperation, 100);
  });

  it('never includes secrets or owner information', () => {
    const text = JSON.stringify(presentLock(memberLock({ secret_hash: 'S', registration_key_hash: 'R' } as never), []));
    assert.ok(!text.includes('secret') && !text.includes('registration') && !text.includes('owner'));
  });
});

describe('stored settings', () => {
  it('reads valid JSON back', () => {
    assert.deepEqual(readPermittedAddresses('["1.2.3.4"]'), ['1.2.3.4']);
    assert.deepEqual(readUsageRequirements('{}'), {});
    assert.equal(readUnlockBetween(null), null);
  });

  it('fails closed on values that no longer read as the right kind', () => {
    assert.throws(() => readPermittedAddresses('not json'));
    assert.throws(() => readPermittedAddresses('{"a":1}'));
    assert.throws(() => readPermittedAddresses('[1]'));
    assert.throws(() => readUsageRequirements('[]'));
    assert.throws(() => readUnlockBetween('"x"'));
  });
});

describe('pathId', () => {
  it('accepts UUIDs in either case and answers 404 for anything else', () => {
    assert.equal(pathId('0190F0F0-0000-7000-8000-00000000ABCD', 'lock'), '0190f0f0-0000-7000-8000-00000000abcd');
    for (const bad of ['', 'lock-1', '0190f0f0-0000-7000-8000-00000000abc', '0190f0f0-0000-7000-8000-00000000abcd ', "' or 1=1 --"]) {
      assert.throws(() => pathId(bad, 'lock'), (err: { status?: number }) => err.status === 404, bad);
    }
  });
});
