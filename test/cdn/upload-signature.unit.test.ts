import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { isLogoContentType, mediaTypeOf, newLogoKey, parseObjectKey } from '../../src/cdn/content-types.js';
import { checkUpload, grantUpload, signUpload, UPLOAD_TTL_SECONDS } from '../../src/cdn/upload-signature.js';

const secret = randomBytes(32);
const APP = '01a20190-e481-765f-8ce6-f499bd0cc3dc';
const NOW = 1_700_000_000;

describe('embedded upload signatures', () => {
  const key = newLogoKey(APP, 'image/png');
  const grant = grantUpload(APP, key, 'image/png', NOW);
  const signature = signUpload(secret, grant);

  it('lasts fifteen minutes from now', () => {
    assert.equal(grant.expires, NOW + UPLOAD_TTL_SECONDS);
    assert.equal(UPLOAD_TTL_SECONDS, 900);
    assert.equal(checkUpload(secret, grant, signature, NOW), 'ok');
    assert.equal(checkUpload(secret, grant, signature, NOW + 900), 'ok');
    assert.equal(checkUpload(secret, grant, signature, NOW + 901), 'expired');
  });

  it('is bound to the application, key, content type and expiry', () => {
    assert.equal(checkUpload(secret, { ...grant, contentType: 'image/jpeg' }, signature, NOW), 'invalid');
    assert.equal(checkUpload(secret, { ...grant, expires: grant.expires + 3600 }, signature, NOW), 'invalid');
    assert.equal(checkUpload(secret, { ...grant, key: newLogoKey(APP, 'image/png') }, signature, NOW), 'invalid');
    assert.equal(checkUpload(secret, { ...grant, applicationId: '01a20190-e481-765f-8ce6-f499bd0cc3dd' }, signature, NOW), 'invalid');
    assert.equal(checkUpload(randomBytes(32), grant, signature, NOW), 'invalid');
    assert.equal(checkUpload(secret, grant, `${signature.slice(0, -1)}A`, NOW), signature.endsWith('A') ? 'ok' : 'invalid');
    assert.equal(checkUpload(secret, grant, '', NOW), 'invalid');
  });

  it('accepts only generated object keys', () => {
    assert.deepEqual(parseObjectKey(key), { key, applicationId: APP, contentType: 'image/png' });
    assert.equal(parseObjectKey(`applications/${APP}/../../secret.png`), null);
    assert.equal(parseObjectKey(`applications/${APP}/logo-${'0'.repeat(32)}.html`), null);
    assert.equal(parseObjectKey('key-encryption.key'), null);
    assert.equal(parseObjectKey(newLogoKey(APP, 'image/svg+xml'))?.contentType, 'image/svg+xml');
  });

  it('knows the logo media types', () => {
    for (const type of ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml']) assert.ok(isLogoContentType(type), type);
    for (const type of ['image/bmp', 'text/html', 'toString', '']) assert.ok(!isLogoContentType(type), type);
    assert.equal(mediaTypeOf('Image/SVG+XML; charset=utf-8'), 'image/svg+xml');
    assert.equal(mediaTypeOf(undefined), '');
  });
});
