import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeBase64Any } from '../../src/crypto/base64.js';
import { DerError, TAG, decodeOid, decodeSmallInteger, decodeTime, parseElement, readChildren } from '../../src/crypto/der.js';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

describe('DER reader', () => {
  it('reads nested elements and long-form lengths', () => {
    const content = Buffer.alloc(200, 0x41);
    const octets = Buffer.concat([hex('0481c8'), content]);
    const sequence = Buffer.concat([hex('3081d2'), hex('020105'), hex('0602'), Buffer.from([0x2a, 0x03]), octets]);
    const element = parseElement(sequence, TAG.SEQUENCE);
    const [integer, oid, value] = readChildren(element.value);
    assert.equal(decodeSmallInteger(integer!), 5);
    assert.equal(decodeOid(oid!), '1.2.3');
    assert.deepEqual(value!.value, content);
  });

  it('refuses indefinite, non-minimal and truncated lengths, trailing bytes and multi-byte tags', () => {
    for (const bad of ['3080020100 0000', '30810102 0100', '3003020100ff', '300502', '1f0100', '3082000302 0100']) {
      assert.throws(() => parseElement(hex(bad)), DerError, bad);
    }
  });

  it('decodes OIDs with large arcs and refuses non-minimal ones', () => {
    assert.equal(decodeOid(parseElement(hex('06032b6570'))), '1.3.101.112');
    assert.equal(decodeOid(parseElement(hex('060a0992268993f22c640101'))), '0.9.2342.19200300.100.1.1');
    assert.throws(() => decodeOid(parseElement(hex('0603 2b 80 01'))), DerError);
  });

  it('decodes UTCTime and GeneralizedTime and refuses impossible dates', () => {
    assert.equal(decodeTime(parseElement(Buffer.concat([hex('170d'), Buffer.from('270115080000Z')]))), Date.UTC(2027, 0, 15, 8) / 1000);
    assert.equal(decodeTime(parseElement(Buffer.concat([hex('170d'), Buffer.from('991231235959Z')]))), Date.UTC(1999, 11, 31, 23, 59, 59) / 1000);
    assert.equal(decodeTime(parseElement(Buffer.concat([hex('180f'), Buffer.from('20550101000000Z')]))), Date.UTC(2055, 0, 1) / 1000);
    assert.throws(() => decodeTime(parseElement(Buffer.concat([hex('170d'), Buffer.from('270230080000Z')]))), DerError);
    assert.throws(() => decodeTime(parseElement(Buffer.concat([hex('170b'), Buffer.from('2701150800Z')]))), DerError);
  });
});

describe('decodeBase64Any', () => {
  it('accepts both alphabets with and without padding', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xfe, 0x01]);
    for (const text of ['+//+AQ==', '+//+AQ', '-__-AQ', '-__-AQ==']) assert.deepEqual(decodeBase64Any(text), bytes);
  });

  it('refuses characters outside Base64 and impossible lengths or padding', () => {
    for (const text of ['ab cd', 'ab.c', 'abcde', 'ab=c', 'abc==', 'a===']) assert.equal(decodeBase64Any(text), null, text);
  });
});
