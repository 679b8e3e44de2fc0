import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, it } from 'node:test';
import { ed25519RawFromKey, parseEd25519PublicKey, verifyEd25519 } from '../../src/crypto/ed25519.js';
import { isAppError } from '../../src/errors/catalogue.js';

function rejectsAsNotEd25519(input: string): void {
  assert.throws(
    () => parseEd25519PublicKey(input),
    (error: unknown) => isAppError(error) && error.status === 400 && error.message === 'ephemeralKey must be an Ed25519 public key',
  );
}

describe('parseEd25519PublicKey', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  const raw = spki.subarray(spki.length - 32);

  it('accepts the raw 32-byte key in standard Base64', () => {
    const key = parseEd25519PublicKey(raw.toString('base64'));
    assert.deepEqual(ed25519RawFromKey(key), raw);
  });

  it('accepts the DER SubjectPublicKeyInfo (RFC 8410)', () => {
    const key = parseEd25519PublicKey(spki.toString('base64'));
    assert.deepEqual(ed25519RawFromKey(key), raw);
  });

  it('accepts the URL alphabet, missing padding and line breaks', () => {
    for (const text of [raw.toString('base64url'), spki.toString('base64url'), raw.toString('base64').replace(/=+$/, ''), `${spki.toString('base64').slice(0, 30)}\n${spki.toString('base64').slice(30)}`]) {
      assert.deepEqual(ed25519RawFromKey(parseEd25519PublicKey(text)), raw);
    }
  });

  it('gives a key that verifies signatures made by the matching private key', () => {
    const key = parseEd25519PublicKey(raw.toString('base64'));
    const message = Buffer.from('123456');
    const signature = sign(null, message, privateKey);
    assert.equal(verifyEd25519(key, message, signature), true);
    assert.equal(verifyEd25519(key, Buffer.from('123457'), signature), false);
    assert.equal(verifyEd25519(key, message, signature.subarray(1)), false);
  });

  it('rejects RSA and EC public keys', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'der', type: 'spki' });
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'der', type: 'spki' });
    const x25519 = generateKeyPairSync('x25519').publicKey.export({ format: 'der', type: 'spki' });
    rejectsAsNotEd25519(rsa.toString('base64'));
    rejectsAsNotEd25519(ec.toString('base64'));
    rejectsAsNotEd25519(x25519.toString('base64'));
  });

  it('rejects wrong lengths, garbage and small-order points', () => {
    rejectsAsNotEd25519(raw.subarray(0, 31).toString('base64'));
    rejectsAsNotEd25519(Buffer.concat([raw, Buffer.from([0])]).toString('base64'));
    rejectsAsNotEd25519('not base64 at all!');
    rejectsAsNotEd25519('');
    rejectsAsNotEd25519(Buffer.alloc(32).toString('base64'));
    rejectsAsNotEd25519(Buffer.from('0100000000000000000000000000000000000000000000000000000000000000', 'hex').toString('base64'));
  });

  it('does not verify with a key of another type', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const signature = sign('sha256', Buffer.from('x'), rsa.privateKey);
    assert.equal(verifyEd25519(rsa.publicKey, Buffer.from('x'), signature), false);
    assert.throws(() => ed25519RawFromKey(rsa.publicKey), TypeError);
  });
});
