import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { presignUrl, type PresignRequest } from '../../src/cdn/sigv4.js';

// The worked example of the S3 API reference, "Authenticating Requests: Using Query Parameters
// (AWS Signature Version 4)": GET examplebucket/test.txt, 2013-05-24T00:00:00Z, 86400 s.
const AWS_EXAMPLE: PresignRequest = {
  method: 'GET',
  url: 'https://examplebucket.s3.amazonaws.com/test.txt',
  region: 'us-east-1',
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  expiresSeconds: 86400,
  now: Date.UTC(2013, 4, 24, 0, 0, 0) / 1000,
};
const AWS_EXAMPLE_URL =
  'https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404';

// A temporary credential's token looks like this: long Base64, with + / = that must be encoded.
const SESSION_TOKEN = 'IQoJb3JpZ2luX2VjEXAMPLE+token/with=padding==';

const hmac = (key: Buffer | string, value: string) => createHmac('sha256', key).update(value).digest();
const encode = (value: string) => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The signature S3 computes for a presigned URL, step by step as the reference describes it
 * (canonical request, string to sign, derived key), from the URL alone: what the store checks.
 */
function expectedSignature(presigned: string, secretAccessKey: string, method: string, headers: Record<string, string> = {}): string {
  const url = new URL(presigned);
  const query = [...url.searchParams.entries()].filter(([name]) => name !== 'X-Amz-Signature');
  const canonicalQuery = query.map(([k, v]) => `${encode(k)}=${encode(v)}`).sort().join('&');
  const allHeaders = { host: url.host, ...headers };
  const names = Object.keys(allHeaders).sort();
  assert.equal(url.searchParams.get('X-Amz-SignedHeaders'), names.join(';'));
  const canonicalHeaders = names.map((name) => `${name}:${allHeaders[name as keyof typeof allHeaders]}\n`).join('');
  const canonicalRequest = [method, url.pathname, canonicalQuery, canonicalHeaders, names.join(';'), 'UNSIGNED-PAYLOAD'].join('\n');
  const [, date, region, service] = /^[^/]+\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/.exec(url.searchParams.get('X-Amz-Credential')!)!;
  const stringToSign = ['AWS4-HMAC-SHA256', url.searchParams.get('X-Amz-Date'), `${date}/${region}/${service}/aws4_request`, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date!), region!), service!), 'aws4_request');
  return hmac(key, stringToSign).toString('hex');
}

describe('SigV4 presigning', () => {
  it('reproduces the presigned URL of the AWS example, byte for byte', async () => {
    assert.equal(await presignUrl(AWS_EXAMPLE), AWS_EXAMPLE_URL);
    assert.equal(expectedSignature(AWS_EXAMPLE_URL, AWS_EXAMPLE.secretAccessKey, 'GET'), 'aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404');
  });

  it('carries a session token as a signed X-Amz-Security-Token parameter', async () => {
    const presigned = await presignUrl({ ...AWS_EXAMPLE, sessionToken: SESSION_TOKEN });
    const url = new URL(presigned);
    assert.equal(url.searchParams.get('X-Amz-Security-Token'), SESSION_TOKEN);
    assert.match(presigned, /X-Amz-Security-Token=IQoJb3JpZ2luX2VjEXAMPLE%2Btoken%2Fwith%3Dpadding%3D%3D(&|$)/);
    const signature = url.searchParams.get('X-Amz-Signature')!;
    assert.equal(signature, expectedSignature(presigned, AWS_EXAMPLE.secretAccessKey, 'GET'));
    assert.notEqual(signature, new URL(AWS_EXAMPLE_URL).searchParams.get('X-Amz-Signature'));
    // The token is signed: swapping it breaks the signature S3 computes.
    const swapped = presigned.replace('EXAMPLE%2Btoken', 'EXAMPLE%2Btoken2');
    assert.notEqual(expectedSignature(swapped, AWS_EXAMPLE.secretAccessKey, 'GET'), signature);
  });

  it('changes the signature when anything signed changes', async () => {
    const signature = async (request: PresignRequest) => new URL(await presignUrl(request)).searchParams.get('X-Amz-Signature');
    const base = await signature(AWS_EXAMPLE);
    assert.notEqual(await signature({ ...AWS_EXAMPLE, now: AWS_EXAMPLE.now + 1 }), base);
    assert.notEqual(await signature({ ...AWS_EXAMPLE, method: 'PUT' }), base);
    assert.notEqual(await signature({ ...AWS_EXAMPLE, secretAccessKey: 'other' }), base);
    assert.notEqual(await signature({ ...AWS_EXAMPLE, headers: { 'Content-Type': 'image/png' } }), base);
  });

  it('signs extra headers in sorted lower case, with a port in host, path style', async () => {
    const presigned = await presignUrl({
      ...AWS_EXAMPLE,
      method: 'PUT',
      url: 'http://127.0.0.1:9000/logos/applications/x/logo a.png',
      headers: { 'Content-Type': ' image/png ' },
      expiresSeconds: 900,
      sessionToken: SESSION_TOKEN,
    });
    const url = new URL(presigned);
    assert.equal(url.host, '127.0.0.1:9000');
    assert.equal(url.pathname, '/logos/applications/x/logo%20a.png');
    assert.equal(url.searchParams.get('X-Amz-SignedHeaders'), 'content-type;host');
    assert.equal(url.searchParams.get('X-Amz-Expires'), '900');
    assert.equal(url.searchParams.get('X-Amz-Signature'), expectedSignature(presigned, AWS_EXAMPLE.secretAccessKey, 'PUT', { 'content-type': 'image/png' }));
  });

  it('refuses expiries S3 would refuse', async () => {
    await assert.rejects(presignUrl({ ...AWS_EXAMPLE, expiresSeconds: 0 }), RangeError);
    await assert.rejects(presignUrl({ ...AWS_EXAMPLE, expiresSeconds: 604_801 }), RangeError);
  });
});
