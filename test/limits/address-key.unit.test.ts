import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressKey } from '../../src/limits/address-key.js';

describe('addressKey (what per-address limits count by)', () => {
  it('counts IPv4 per address, IPv4-mapped IPv6 as the IPv4 address', () => {
    assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
    assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7');
  });

  it('counts every address of one IPv6 /64 together, and other /64s apart', () => {
    const a = addressKey('2001:db8:1:2::1');
    assert.equal(a, '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), a);
    assert.notEqual(addressKey('2001:db8:1:3::1'), a);
    assert.equal(addressKey('::1'), '0:0:0:0::/64');
  });

  it('leaves anything that is not an address as it is', () => {
    assert.equal(addressKey('not:an:address:at:all:zz'), 'not:an:address:at:all:zz');
    assert.equal(addressKey(''), '');
  });
});
