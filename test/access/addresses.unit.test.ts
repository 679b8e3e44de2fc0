import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_PERMITTED_ADDRESSES, isAddressPermitted, parseAddressRange, parsePermittedAddresses } from '../../src/access/addresses.js';

describe('parsePermittedAddresses', () => {
  it('accepts IPv4 and IPv6 addresses and CIDR ranges, and an empty list', () => {
    const result = parsePermittedAddresses(['203.0.113.7', '198.51.100.0/24', '2001:db8::1', '2001:db8:abcd::/48', '::ffff:192.0.2.1', '0.0.0.0/0', '::/0']);
    assert.equal(result.ok, true);
    assert.equal(result.ok && result.ranges.length, 7);
    assert.deepEqual(parsePermittedAddresses([]), { ok: true, ranges: [] });
  });

  it('reads an IPv4-mapped IPv6 entry as the IPv4 address or range it stands for', () => {
    const single = parseAddressRange('::ffff:192.0.2.1');
    assert.equal(single?.address.kind(), 'ipv4');
    assert.equal(single?.address.toString(), '192.0.2.1');
    assert.equal(single?.bits, 32);
    const range = parseAddressRange('::ffff:10.0.0.0/104');
    assert.equal(range?.address.kind(), 'ipv4');
    assert.equal(range?.bits, 8);
  });

  it('rejects anything that is not strictly an address or range, naming the entry', () => {
    const bad = ['', 'localhost', '1.2.3', '127.1', '010.0.0.1', '0x7f.0.0.1', '256.0.0.1', '1.2.3.4/33', '1.2.3.4/', '1.2.3.4/08', '1.2.3.4/-1',
      '2001:db8::/129', 'fe80::1%eth0', ' 1.2.3.4', '1.2.3.4 ', '1.2.3.4/24/1', '2001:db8:::1', 'a'.repeat(65)];
    for (const entry of bad) {
      assert.deepEqual(parsePermittedAddresses(['192.0.2.1', entry]), {
        ok: false,
        message: 'permittedAddresses[1] is not an IPv4/IPv6 address or CIDR range',
      }, JSON.stringify(entry));
    }
  });

  it('rejects non-string entries, non-arrays and overlong lists', () => {
    assert.equal(parsePermittedAddresses([42]).ok, false);
    assert.equal(parsePermittedAddresses([null]).ok, false);
    assert.equal(parsePermittedAddresses('1.2.3.4').ok, false);
    const tooMany = Array.from({ length: MAX_PERMITTED_ADDRESSES + 1 }, (_, i) => `10.0.${Math.floor(i / 256)}.${i % 256}`);
    assert.deepEqual(parsePermittedAddresses(tooMany), { ok: false, message: `permittedAddresses may hold at most ${MAX_PERMITTED_ADDRESSES} entries` });
    assert.equal(parsePermittedAddresses(tooMany.slice(1)).ok, true);
  });
});

describe('isAddressPermitted', () => {
  it('permits everyone when the list is empty', () => {
    assert.equal(isAddressPermitted([], '203.0.113.7'), true);
    assert.equal(isAddressPermitted([], undefined), true);
  });

  it('matches IPv4 exactly and inside CIDR ranges', () => {
    const list = ['203.0.113.7', '198.51.100.0/24'];
    assert.equal(isAddressPermitted(list, '203.0.113.7'), true);
    assert.equal(isAddressPermitted(list, '203.0.113.8'), false);
    assert.equal(isAddressPermitted(list, '198.51.100.255'), true);
    assert.equal(isAddressPermitted(list, '198.51.101.0'), false);
  });

  it('matches IPv6 exactly (in any spelling) and inside CIDR ranges', () => {
    const list = ['2001:db8::1', '2001:db8:abcd::/48'];
    assert.equal(isAddressPermitted(list, '2001:0db8:0000:0000:0000:0000:0000:0001'), true);
    assert.equal(isAddressPermitted(list, '2001:db8::2'), false);
    assert.equal(isAddressPermitted(list, '2001:db8:abcd:ffff::9'), true);
    assert.equal(isAddressPermitted(list, '2001:db8:abce::1'), false);
  });

  it('treats an IPv4-mapped caller as IPv4, and a mapped entry as IPv4', () => {
    assert.equal(isAddressPermitted(['192.0.2.0/24'], '::ffff:192.0.2.55'), true);
    assert.equal(isAddressPermitted(['192.0.2.1'], '::ffff:192.0.2.2'), false);
    assert.equal(isAddressPermitted(['::ffff:192.0.2.1'], '192.0.2.1'), true);
    assert.equal(isAddressPermitted(['::ffff:10.0.0.0/104'], '10.20.30.40'), true);
  });

  it('never matches IPv4 against IPv6 ranges or the other way round', () => {
    assert.equal(isAddressPermitted(['::/0'], '192.0.2.1'), false);
    assert.equal(isAddressPermitted(['0.0.0.0/0'], '2001:db8::1'), false);
    assert.equal(isAddressPermitted(['0.0.0.0/0'], '192.0.2.1'), true);
  });

  it('fails closed on an unknown or unparsable caller and on unparsable stored entries', () => {
    assert.equal(isAddressPermitted(['192.0.2.1'], undefined), false);
    assert.equal(isAddressPermitted(['192.0.2.1'], null), false);
    assert.equal(isAddressPermitted(['192.0.2.1'], 'not-an-ip'), false);
    assert.equal(isAddressPermitted(['garbage'], '192.0.2.1'), false);
    assert.equal(isAddressPermitted(['garbage', '192.0.2.1'], '192.0.2.1'), true);
  });

  it('ignores a zone id on the caller address', () => {
    assert.equal(isAddressPermitted(['fe80::/10'], 'fe80::1%eth0'), true);
  });
});
