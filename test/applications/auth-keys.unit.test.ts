import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, it } from 'node:test';
import { algorithmsFor, parseAuthKey } from '../../src/applications/auth-keys.js';
import { isAppError } from '../../src/errors/catalogue.js';

function jwkOf(type: 'rsa' | 'ec' | 'ed25519' | 'x25519', options: Record<string, unknown> = {}) {
  const pair = (generateKeyPairSync as (type: string, options: object) => { publicKey: KeyObject; privateKey: KeyObject })(type, options);
  return { publicJwk: pair.publicKey.export({ format: 'jwk' }) as Record<string, unknown>, privateJwk: pair.privateKey.export({ format: 'jwk' }) as Record<string, unknown> };
}

function rejects400(input: unknown, pattern: RegExp) {
  assert.throws(
    () => parseAuthKey(input),
    (err: unknown) => isAppError(err) && err.status === 400 && pattern.test(err.message),
  );
}

describe('auth key validation', () => {
  const rsa = jwkOf('rsa', { modulusLength: 2048 });
  const p256 = jwkOf('ec', { namedCurve: 'P-256' });
  const ed = jwkOf('ed25519');

  it('accepts public RSA ≥ 2048, EC P-256/384/521 and Ed25519 keys, keeping only public members', () => {
    const key = parseAuthKey({ ...rsa.publicJwk, kid: 'r1', x5t: 'ignored', extra: 'dropped' });
    assert.deepEqual(Object.keys(key).sort(), ['e', 'kid', 'kty', 'n']);
    for (const curve of ['P-256', 'P-384', 'P-521']) {
      const { publicJwk } = jwkOf('ec', { namedCurve: curve });
      assert.equal(parseAuthKey({ ...publicJwk, kid: curve }).crv, curve);
    }
    assert.deepEqual(parseAuthKey({ ...ed.publicJwk, kid: 'e1', use: 'sig', alg: 'EdDSA' }), { ...ed.publicJwk, kid: 'e1', use: 'sig', alg: 'EdDSA' });
  });

  it('refuses every private member', () => {
    rejects400({ ...rsa.privateJwk, kid: 'r' }, /private/);
    rejects400({ ...p256.privateJwk, kid: 'p' }, /private/);
    rejects400({ ...ed.privateJwk, kid: 'e' }, /private/);
    for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) rejects400({ ...rsa.publicJwk, kid: 'r', [member]: 'AQAB' }, /private/);
    rejects400({ kty: 'oct', k: 'c2VjcmV0', kid: 'h' }, /private/);
  });

  it('refuses weak, unknown or malformed keys', () => {
    rejects400({ ...jwkOf('rsa', { modulusLength: 1024 }).publicJwk, kid: 'weak' }, /2048/);
    rejects400({ ...p256.publicJwk, crv: 'brainpoolP256r1', kid: 'bp' }, /P-256/);
    rejects400({ ...jwkOf('x25519').publicJwk, kid: 'x' }, /Ed25519/);
    rejects400({ kty: 'oct', kid: 'o' }, /kty/);
    rejects400({ ...p256.publicJwk, kid: 'bad', y: p256.publicJwk.x === 'AAAA' ? 'BBBB' : String(p256.publicJwk.x) }, /valid public key|coordinates/);
    rejects400({ ...ed.publicJwk, kid: 'short', x: 'AAAA' }, /32 bytes/);
    rejects400([], /JWK/);
    rejects400('jwk', /JWK/);
  });

  it('requires a kid and a fitting alg and use', () => {
    rejects400({ ...p256.publicJwk }, /kid/);
    rejects400({ ...p256.publicJwk, kid: '' }, /kid/);
    rejects400({ ...p256.publicJwk, kid: 'x'.repeat(256) }, /kid/);
    rejects400({ ...p256.publicJwk, kid: 'a', alg: 'RS256' }, /alg/);
    rejects400({ ...p256.publicJwk, kid: 'a', use: 'enc' }, /use/);
  });

  it('allows only the algorithms that fit the key', () => {
    assert.deepEqual(algorithmsFor({ kty: 'EC', crv: 'P-384' }), ['ES384']);
    assert.deepEqual(algorithmsFor({ kty: 'OKP', crv: 'Ed25519' }), ['EdDSA', 'Ed25519']);
    assert.deepEqual(algorithmsFor({ kty: 'RSA', alg: 'PS256' }), ['PS256']);
    // ECDSA-SHA-256 on secp256k1 under either name; ES256 on P-256 stays ES256 alone.
    assert.deepEqual(algorithmsFor({ kty: 'EC', crv: 'secp256k1', alg: 'ES256' }), ['ES256K', 'ES256']);
    assert.deepEqual(algorithmsFor({ kty: 'EC', crv: 'P-256', alg: 'ES256K' }), []);
    assert.deepEqual(algorithmsFor({ kty: 'EC', crv: 'secp256k1', alg: 'ES384' }), []);
    assert.ok(!algorithmsFor({ kty: 'RSA' }).some((a) => a.startsWith('HS')));
  });
});
