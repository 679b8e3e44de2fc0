import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { S3LogoStorage } from '../../src/cdn/s3-storage.js';
import { presignUrl } from '../../src/cdn/sigv4.js';
import { loadConfig } from '../../src/config/config.js';

const S3_ENV = {
  S3_ENDPOINT: 'https://s3.eu-west-1.amazonaws.com/',
  S3_BUCKET: 'latchkey-logos',
  S3_REGION: 'eu-west-1',
  S3_ACCESS_KEY_ID: 'ASIAEXAMPLETEMPORARY',
  S3_SECRET_ACCESS_KEY: 'temporary-secret',
};
const TOKEN = 'FwoGZXIvYXdzEXAMPLE+session/token==';
const NOW = Date.UTC(2026, 0, 2, 3, 4, 5) / 1000;
const APPLICATION = '0190a8e4-1111-7000-8000-000000000001';

describe('S3 logo storage with temporary credentials', () => {
  it('reads S3_SESSION_TOKEN, and none when it is unset', () => {
    assert.equal(loadConfig({ ...S3_ENV, S3_SESSION_TOKEN: TOKEN }, '/tmp').s3?.sessionToken, TOKEN);
    assert.equal(loadConfig(S3_ENV, '/tmp').s3?.sessionToken, null);
    assert.throws(() => loadConfig({ S3_SESSION_TOKEN: TOKEN }, '/tmp'), /S3_/);
  });

  it('presigns the upload with the session token, signed', async () => {
    const s3 = loadConfig({ ...S3_ENV, S3_SESSION_TOKEN: TOKEN }, '/tmp').s3!;
    const upload = await new S3LogoStorage(s3).createUpload(APPLICATION, 'image/png', NOW);
    const url = new URL(upload.uploadUrl);
    assert.equal(url.searchParams.get('X-Amz-Security-Token'), TOKEN);
    assert.equal(url.searchParams.get('X-Amz-SignedHeaders'), 'content-type;host');
    assert.match(url.searchParams.get('X-Amz-Credential')!, /^ASIAEXAMPLETEMPORARY\/20260102\/eu-west-1\/s3\/aws4_request$/);
    // The same request signed without the token differs only by it and the signature.
    const withoutToken = new URL(await presignUrl({ method: 'PUT', url: `${url.origin}${url.pathname}`, region: 'eu-west-1', accessKeyId: S3_ENV.S3_ACCESS_KEY_ID, secretAccessKey: S3_ENV.S3_SECRET_ACCESS_KEY, expiresSeconds: 900, now: NOW, headers: { 'content-type': 'image/png' } }));
    assert.equal(withoutToken.searchParams.get('X-Amz-Security-Token'), null);
    assert.notEqual(withoutToken.searchParams.get('X-Amz-Signature'), url.searchParams.get('X-Amz-Signature'));
    assert.ok(upload.logoUrl.startsWith('https://s3.eu-west-1.amazonaws.com/latchkey-logos/applications/'));
  });
});
