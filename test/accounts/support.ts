import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyPairKeyObjectResult } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { ApiResponse } from '../helpers/http.js';
import type { ReceivedEmail, SmtpSink } from '../helpers/smtp.js';
import type { TestService } from '../helpers/service.js';

/** Asserts the documented error body `{code, message}` with the status's code (a minor code allowed). */
export function assertError(res: ApiResponse, status: number): void {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(typeof res.body?.message, 'string', res.text);
  assert.ok(res.body.message.length > 0);
  assert.equal(Math.floor(res.body.code), status, res.text);
}

/** Asserts a token-pair body: the two JWTs, and the legacy key pair exactly when `withKeys`. */
export function assertTokenPair(res: ApiResponse, withKeys: boolean): void {
  assert.equal(res.status, 200, res.text);
  assert.equal(decodeProtectedHeader(res.body.authToken).typ, 'at+jwt');
  assert.equal(decodeProtectedHeader(res.body.refreshToken).typ, 'refresh+jwt');
  const keyFields = ['privateKey', 'publicKey'].filter((k) => k in res.body);
  assert.deepEqual(keyFields, withKeys ? ['privateKey', 'publicKey'] : [], `key fields: ${keyFields.join(', ')}`);
}

/** Checks the legacy pair: RSA-2048 SPKI and PKCS#8 DER in Base64 that belong together. */
export function assertLegacyKeyPair(publicKey: string, privateKey: string): void {
  const pub = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
  const priv = createPrivateKey({ key: Buffer.from(privateKey, 'base64'), format: 'der', type: 'pkcs8' });
  assert.equal(pub.asymmetricKeyType, 'rsa');
  assert.equal(pub.asymmetricKeyDetails?.modulusLength, 2048);
  const data = Buffer.from('unlock the front door');
  const signature = sign('sha256', data, priv);
  assert.ok(verify('sha256', data, pub, signature), 'the private key must match the public key');
  assert.ok(!verify('sha256', data, pub, sign('sha256', data, sharedRsaPair('stranger').privateKey)), 'another key must not verify');
}

/**
 * An RSA-2048 pair per role for the whole test process, made when first asked for: a key takes
 * 0.1–0.7 s of CPU to make (the account tests made ~15 a run on each engine, ~17 % of their CPU).
 * For keys that only have to differ from the service's (which makes its own, fresh ones) and from
 * each other's role: the stranger whose signature must not verify, an invite's key no test tells
 * apart from another invite's.
 */
const sharedPairs = new Map<'stranger' | 'invite', KeyPairKeyObjectResult>();
function sharedRsaPair(role: 'stranger' | 'invite'): KeyPairKeyObjectResult {
  let pair = sharedPairs.get(role);
  if (!pair) sharedPairs.set(role, (pair = generateKeyPairSync('rsa', { modulusLength: 2048 })));
  return pair;
}

export function subjectOf(token: string): string {
  return decodeJwt(token).sub!;
}

/** The single-use code in the `index`-th verification email sent to `email` (waits for it to arrive). */
export async function verificationCode(sink: SmtpSink, email: string, index = 0): Promise<{ code: string; message: ReceivedEmail }> {
  await sink.waitFor(() => messagesTo(sink, email).length > index);
  const message = messagesTo(sink, email)[index]!;
  const match = /verify\?code=([A-Za-z0-9_%-]+)/.exec(message.text);
  assert.ok(match, `no verification link in: ${message.text}`);
  return { code: decodeURIComponent(match[1]!), message };
}

export function messagesTo(sink: SmtpSink, email: string): ReceivedEmail[] {
  return sink.messages.filter((m) => m.to.includes(email.toLowerCase()));
}

/**
 * A pending invite as the sharing feature makes it: an orphan user in the direct namespace, with
 * a legacy key pair when `withKey`: the process's shared pair (`true`), or one of its own
 * (`'own'`, for a test that tells this invite's key from any other).
 */
export async function insertOrphan(t: TestService, email: string, options: { withKey?: boolean | 'own' } = {}): Promise<{ id: string; publicKey: string | null }> {
  const id = crypto.randomUUID();
  let publicKey: string | null = null;
  let sealed: string | null = null;
  if (options.withKey) {
    const pair = options.withKey === 'own' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : sharedRsaPair('invite');
    publicKey = pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    sealed = t.service.ctx.box.seal(pair.privateKey.export({ format: 'der', type: 'pkcs8' }), `user-private-key:${id}`);
  }
  const now = Date.now() / 1000;
  await t.service.ctx.db.kysely
    .insertInto('users')
    .values({
      id,
      namespace: 'direct',
      external_id: null,
      email,
      email_normalised: email.toLowerCase(),
      email_verified: 0,
      telephone: null,
      telephone_verified: 0,
      display_name: null,
      password_hash: null,
      public_key: publicKey,
      private_key_sealed: sealed,
      orphan: 1,
      created: now,
      updated: now,
    })
    .execute();
  return { id, publicKey };
}

export function findUserRow(t: TestService, id: string) {
  return t.service.ctx.db.kysely.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export function usersWithEmail(t: TestService, email: string) {
  return t.service.ctx.db.kysely.selectFrom('users').selectAll().where('email_normalised', '=', email.toLowerCase()).execute();
}
