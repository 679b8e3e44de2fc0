import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { createCertificateAuthority, createTrustAnchor, issueLeafCertificate, type TrustAnchor } from '../../src/crypto/pki.js';
import { isAppError } from '../../src/errors/catalogue.js';
import { cachedLegacyKeyReader, decodeOperationToken as decodeWithLimit, parseLegacyPublicKey, verifyOperationSignature } from '../../src/crypto/operation-token.js';

const NOW = 1_800_000_000;
const USER = '0190a8e4-1111-7000-8000-000000000001';
const OTHER_USER = '0190a8e4-2222-7000-8000-000000000002';
const LOCK = '0190a8e4-3333-7000-8000-000000000003';
const MAX_LENGTH = 16 * 1024;
const decodeOperationToken = (compact: string) => decodeWithLimit(compact, MAX_LENGTH);

const claims = (over: Record<string, unknown> = {}) => ({
  iss: USER, sub: LOCK, iat: NOW, nbf: NOW, exp: NOW + 60, jti: randomUUID(), operation: { type: 'MUTATE_LOCK', locked: false }, ...over,
});
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function isStatus(status: number, message?: RegExp) {
  return (error: unknown) => {
    assert.ok(isAppError(error), `expected an AppError, got ${String(error)}`);
    assert.equal(error.status, status, error.message);
    if (message) assert.match(error.message, message);
    return true;
  };
}

describe('operation tokens', () => {
  let anchor: TrustAnchor;
  let chain: string[];
  let userKey: KeyObject;
  let foreignChain: string[];
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });

  const eddsa = (payload = claims(), header: Record<string, unknown> = { alg: 'EdDSA', typ: 'JWT', x5c: chain }, key = userKey) =>
    new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(key);
  const verifyToken = async (compact: string, legacyPublicKey?: KeyObject) =>
    verifyOperationSignature(decodeOperationToken(compact), { legacyPublicKey, trustedRoot: anchor, now: NOW });

  before(async () => {
    const ca = await createCertificateAuthority({ name: 'Latchkey', now: NOW - 3600 });
    anchor = createTrustAnchor(ca.root.der);
    const pair = generateKeyPairSync('ed25519');
    userKey = pair.privateKey;
    chain = await issueLeafCertificate(ca, { userId: USER, publicKey: pair.publicKey, now: NOW - 60 });
    const foreign = await createCertificateAuthority({ name: 'Latchkey', now: NOW - 3600 });
    foreignChain = await issueLeafCertificate(foreign, { userId: USER, publicKey: pair.publicKey, now: NOW - 60 });
  });

  it('verifies an EdDSA token whose x5c leaf names iss', async () => {
    const compact = await eddsa();
    const decoded = decodeOperationToken(compact);
    assert.equal(decoded.header.alg, 'EdDSA');
    assert.equal(decoded.payload.sub, LOCK);
    assert.deepEqual(decoded.signingInput, Buffer.from(compact.split('.').slice(0, 2).join('.')));
    const signer = await verifyOperationSignature(decoded, { trustedRoot: anchor, now: NOW });
    assert.equal(signer.userId, USER);
    assert.equal(signer.alg, 'EdDSA');
  });

  it('shares one frozen header between tokens that carry the same, and still refuses a bad one every time', async () => {
    const [first, second] = [decodeOperationToken(await eddsa()), decodeOperationToken(await eddsa())];
    assert.equal(first.header, second.header);
    assert.ok(Object.isFrozen(first.header) && Object.isFrozen(first.header.x5c));
    assert.notEqual(first.payload.jti, second.payload.jti);
    await verifyOperationSignature(second, { trustedRoot: anchor, now: NOW });
    const none = `${b64({ alg: 'none' })}.${b64(claims())}.`;
    for (let i = 0; i < 2; i++) assert.throws(() => decodeOperationToken(none), isStatus(401, /RS256 or EdDSA/));
  });

  it('tells apart headers that share their first kilobyte, whichever was decoded first', async () => {
    const padding = 'p'.repeat(1024);
    const ours = decodeOperationToken(await eddsa(claims(), { alg: 'EdDSA', typ: 'JWT', kid: padding, x5c: chain }));
    const foreign = decodeOperationToken(await eddsa(claims(), { alg: 'EdDSA', typ: 'JWT', kid: padding, x5c: foreignChain }));
    assert.deepEqual(foreign.header.x5c, foreignChain);
    await assert.rejects(verifyOperationSignature(foreign, { trustedRoot: anchor, now: NOW }), isStatus(401));
    assert.deepEqual(decodeOperationToken(await eddsa(claims(), { alg: 'EdDSA', typ: 'JWT', kid: padding, x5c: chain })).header, ours.header);
    await verifyOperationSignature(ours, { trustedRoot: anchor, now: NOW });
  });

  it('accepts typ jwt or no typ', async () => {
    await verifyToken(await eddsa(claims(), { alg: 'EdDSA', typ: 'jwt', x5c: chain }));
    await verifyToken(await eddsa(claims(), { alg: 'EdDSA', x5c: chain }));
    await assert.rejects(verifyToken(await eddsa(claims(), { alg: 'EdDSA', typ: 'at+jwt', x5c: chain })), isStatus(401, /type/));
  });

  it('rejects EdDSA without x5c, with a foreign chain, for another iss, or signed by another key', async () => {
    await assert.rejects(verifyToken(await eddsa(claims(), { alg: 'EdDSA', typ: 'JWT' })), isStatus(401, /x5c/));
    await assert.rejects(verifyToken(await eddsa(claims(), { alg: 'EdDSA', x5c: foreignChain })), isStatus(401, /trusted root/));
    await assert.rejects(verifyToken(await eddsa(claims({ iss: OTHER_USER }))), isStatus(401, /iss/));
    const stranger = generateKeyPairSync('ed25519').privateKey;
    await assert.rejects(verifyToken(await eddsa(claims(), undefined, stranger)), isStatus(401, /signature invalid/));
  });

  it('rejects alg none, HS256, ES256 and other algorithms with 401', async () => {
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.`;
    assert.throws(() => decodeOperationToken(none), isStatus(401, /RS256 or EdDSA/));
    const hs256 = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('a-shared-secret-of-32-bytes-long'));
    assert.throws(() => decodeOperationToken(hs256), isStatus(401));
    const es256 = await new SignJWT(claims()).setProtectedHeader({ alg: 'ES256' }).sign(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
    assert.throws(() => decodeOperationToken(es256), isStatus(401));
    for (const alg of ['Ed25519', 'eddsa', 'RS512', 'PS256', undefined]) {
      assert.throws(() => decodeOperationToken(`${b64({ alg })}.${b64(claims())}.c2ln`), isStatus(401), String(alg));
    }
    assert.throws(() => decodeOperationToken(`${b64({ alg: 'EdDSA', crit: ['b64'], b64: false })}.${b64(claims())}.c2ln`), isStatus(401, /critical/));
  });

  it('verifies RS256 with the legacy key and rejects a wrong, missing or weak key', async () => {
    const compact = await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', typ: 'JWT' }).sign(rsa.privateKey);
    const legacy = parseLegacyPublicKey(rsa.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'))!;
    assert.equal((await verifyToken(compact, legacy)).userId, USER);
    await assert.rejects(verifyToken(compact, generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey), isStatus(401, /signature invalid/));
    await assert.rejects(verifyToken(compact), isStatus(401, /no RS256 key/));
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const weakInput = `${b64({ alg: 'RS256' })}.${b64(claims())}`;
    const weakToken = `${weakInput}.${sign('sha256', Buffer.from(weakInput), weak.privateKey).toString('base64url')}`;
    await assert.rejects(verifyToken(weakToken, weak.publicKey), isStatus(401, /cannot verify RS256/));
    const [header, , signature] = compact.split('.');
    await assert.rejects(verifyToken(`${header}.${b64(claims({ operation: { type: 'MUTATE_LOCK', locked: true } }))}.${signature}`, legacy), isStatus(401));
  });

  it('never accepts an EdDSA signature presented as RS256', async () => {
    const compact = await eddsa();
    const [, payload, signature] = compact.split('.');
    const relabelled = `${b64({ alg: 'RS256', x5c: chain })}.${payload}.${signature}`;
    await assert.rejects(verifyToken(relabelled, rsa.publicKey), isStatus(401, /signature invalid/));
  });

  it('accepts standard Base64 with padding in every segment, checking the bytes as received', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'EdDSA', typ: 'JWT', x5c: chain })).toString('base64');
    const payload = Buffer.from(JSON.stringify(claims({ note: '??>>' }))).toString('base64');
    const signature = sign(null, Buffer.from(`${header}.${payload}`), userKey).toString('base64');
    assert.ok(/[+/=]/.test(`${header}${payload}${signature}`), 'the test token must use the standard alphabet or padding');
    const decoded = decodeOperationToken(`${header}.${payload}.${signature}`);
    assert.deepEqual(decoded.signingInput, Buffer.from(`${header}.${payload}`));
    assert.equal((await verifyOperationSignature(decoded, { trustedRoot: anchor, now: NOW })).userId, USER);
    // The same claims re-encoded after signing are different bytes: the signature no longer holds.
    const reencoded = `${Buffer.from(header, 'base64').toString('base64url')}.${Buffer.from(payload, 'base64').toString('base64url')}.${signature}`;
    assert.notEqual(reencoded.split('.')[0], header);
    await assert.rejects(verifyToken(reencoded), isStatus(401, /signature invalid/));
  });

  it('rejects segments that do not decode to JSON objects with 400', () => {
    const good = b64({ alg: 'EdDSA' });
    for (const compact of [`${good}.${b64([1, 2])}.c2ln`, `${b64('str')}.${b64(claims())}.c2ln`, `e30.${b64(claims())}.c2ln`, `${good}.%%%.c2ln`, `${good}.bm90IGpzb24.c2ln`, `${good}..c2ln`, `${good}.e30`]) {
      assert.throws(() => decodeOperationToken(compact), (error: unknown) => isAppError(error) && (error.status === 400 || error.status === 401), compact);
    }
    assert.throws(() => decodeOperationToken(`${good}.bm90IGpzb24.c2ln`), isStatus(400));
    assert.throws(() => decodeOperationToken(`${good}.${b64(claims())}.`), isStatus(401));
  });

  it('refuses a token longer than the limit given with 400, before decoding it', async () => {
    const compact = await eddsa();
    assert.equal(decodeWithLimit(compact, compact.length).payload.sub, LOCK);
    assert.throws(() => decodeWithLimit(compact, compact.length - 1), isStatus(400, /malformed/));
  });

  it('requires iss to be a string before verifying', async () => {
    await assert.rejects(verifyToken(await eddsa(claims({ iss: 42 }))), isStatus(400, /iss/));
  });

  it('reads a legacy key once per key text, and keeps no unreadable key', () => {
    const readKey = cachedLegacyKeyReader(1);
    const base64 = rsa.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    const first = readKey(base64);
    assert.ok(first);
    assert.equal(first.asymmetricKeyType, 'rsa');
    assert.equal(readKey(base64), first);
    assert.equal(readKey('not base64!'), null);
    assert.equal(readKey(base64), first);
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    assert.notEqual(readKey(other), first);
    const again = readKey(base64);
    assert.ok(again?.equals(first));
    assert.notEqual(again, first, 'the bound of one entry evicted it');
  });
});
