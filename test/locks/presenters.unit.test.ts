import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pathId } from '../../src/ids/path-ids.js';
import { readPermittedAddresses, readUnlockBetween, readUsageRequirements } from '../../src/locks/json.js';
import build from 'fast-json-stringify';
import { DEFAULT_LOCK_COLOUR } from '../../src/locks/lock-json.js';
import { presentLock, presentSiteLock } from '../../src/locks/presenters.js';
import type { MemberLockRow } from '../../src/locks/queries.js';
import { LockResponse, SiteLockResponse } from '../../src/locks/schemas.js';

type Member = { alias: string | null; colour: string | null; role: 'ADMIN' | 'USER'; favourite: 0 | 1; hidden: 0 | 1; starts_at: number | null; ends_at: number | null; schedule: string | null };

function memberLock(overrides: Partial<MemberLockRow> = {}, member: Partial<Member> = {}): MemberLockRow {
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
    reported_lockdown: null,
    created: 100,
    updated: 200,
    site_colour: null,
    lock_id: 'lock-1',
    user_id: 'u1',
    role: 'USER',
    starts_at: null,
    ends_at: null,
    alias: null,
    favourite: 0,
    hidden: 0,
    colour: null,
    schedule: null,
    ...member,
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

  it('shows what the response schema, applied, would write unchanged: no key it drops, no value it changes', () => {
    const rows = [
      memberLock(),
      memberLock({ locked: 1, connected: 1, door_open: 0, battery: 40, jammed: 0, tamper: 1, device_kind: 'zwave', device_capabilities: 'keypad,battery' }, { role: 'ADMIN', alias: 'Mine', favourite: 1, hidden: 1, starts_at: 10.5, ends_at: 20 }),
      memberLock({ usage_requirements: '{"time":[{"start":"08:00","end":"18:00","timezone":"UTC","days":["MONDAY"]}],"location":{"latitude":1,"longitude":2,"radius":3.4}}', unlock_between: '{"start":"01:00","end":"02:00","timezone":"UTC","days":["MONDAY"]}' }, { role: 'ADMIN', schedule: '[{"start":"08:00","end":"18:00","timezone":"UTC","days":["MONDAY"]}]' }),
      memberLock({ usage_requirements: '{"location":{"latitude":1,"longitude":2,"enabled":false}}', direct_access: 1, direct_access_endpoints: '["192.0.2.7:8443",3]' }),
      memberLock({ direct_access: 0, direct_access_endpoints: '["192.0.2.7:8443"]' }),
    ];
    const lock = build(LockResponse);
    const siteLock = build(SiteLockResponse);
    for (const row of rows) {
      const presented = presentLock(row, ['tile-1']);
      assert.deepEqual(JSON.parse(lock(presented)), presented);
      const entry = presentSiteLock(row, ['tile-1']);
      assert.deepEqual(JSON.parse(siteLock(entry)), entry);
    }
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
