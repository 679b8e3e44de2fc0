import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { amzDate, presignParts, presignUrl, uriEncode } from '../../src/cdn/sigv4.js';

// The worked example of the S3 API reference, "Authenticating Requests: Using Query Parameters
// (AWS Signature Version 4)": GET examplebucket/test.txt, 2013-05-24T00:00:00Z, 86400 s.
const AWS_EXAMPLE = {
  method: 'GET',
  url: 'https://examplebucket.s3.amazonaws.com/test.txt',
  region: 'us-east-1',
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  expiresSeconds: 86400,
  now: Date.UTC(2013, 4, 24, 0, 0, 0) / 1000,
};

describe('SigV4 presigning', () => {
  it('reproduces the canonical request of the AWS example', () => {
    const { canonicalRequest } = presignParts(AWS_EXAMPLE);
    assert.equal(
      canonicalRequest,
      [
        'GET',
        '/test.txt',
        'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host',
        'host:examplebucket.s3.amazonaws.com',
        '',
        'host',
        'UNSIGNED-PAYLOAD',
      ].join('\n'),
    );
  });

  it('reproduces the string to sign of the AWS example', () => {
    assert.equal(
      presignParts(AWS_EXAMPLE).stringToSign,
      ['AWS4-HMAC-SHA256', '20130524T000000Z', '20130524/us-east-1/s3/aws4_request', '3bfa292879f6447bbcda7001decf97f4a54dc650c8942174ae0a9121cf58ad04'].join('\n'),
    );
  });

  it('reproduces the signature and presigned URL of the AWS example', () => {
    assert.equal(presignParts(AWS_EXAMPLE).signature, 'aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404');
    assert.equal(
      presignUrl(AWS_EXAMPLE),
      'https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    );
  });

  it('changes the signature when anything signed changes', () => {
    const base = presignParts(AWS_EXAMPLE).signature;
    assert.notEqual(presignParts({ ...AWS_EXAMPLE, now: AWS_EXAMPLE.now + 1 }).signature, base);
    assert.notEqual(presignParts({ ...AWS_EXAMPLE, method: 'PUT' }).signature, base);
    assert.notEqual(presignParts({ ...AWS_EXAMPLE, secretAccessKey: 'other' }).signature, base);
    assert.notEqual(presignParts({ ...AWS_EXAMPLE, headers: { 'Content-Type': 'image/png' } }).signature, base);
  });

  it('signs extra headers in sorted lower case, with a port in host, path style', () => {
    const url = new URL(
      presignUrl({ ...AWS_EXAMPLE, method: 'PUT', url: 'http://127.0.0.1:9000/logos/applications/x/logo a.png', headers: { 'Content-Type': ' image/png ' }, expiresSeconds: 900 }),
    );
    assert.equal(url.host, '127.0.0.1:9000');
    assert.equal(url.pathname, '/logos/applications/x/logo%20a.png');
    assert.equal(url.searchParams.get('X-Amz-SignedHeaders'), 'content-type;host');
    assert.equal(url.searchParams.get('X-Amz-Expires'), '900');
    const { canonicalRequest } = presignParts({ ...AWS_EXAMPLE, method: 'PUT', url: 'http://127.0.0.1:9000/b/k.png', headers: { 'Content-Type': ' image/png ' } });
    assert.match(canonicalRequest, /\ncontent-type:image\/png\nhost:127\.0\.0\.1:9000\n\ncontent-type;host\n/);
  });

  it('refuses expiries S3 would refuse', () => {
    assert.throws(() => presignUrl({ ...AWS_EXAMPLE, expiresSeconds: 0 }), RangeError);
    assert.throws(() => presignUrl({ ...AWS_EXAMPLE, expiresSeconds: 604_801 }), RangeError);
  });

  it('encodes per RFC 3986 and formats dates', () => {
    assert.equal(uriEncode("a b/c!'()*~"), 'a%20b%2Fc%21%27%28%29%2A~');
    assert.equal(amzDate(Date.UTC(2013, 4, 24, 1, 2, 3) / 1000 + 0.9), '20130524T010203Z');
  });
});
