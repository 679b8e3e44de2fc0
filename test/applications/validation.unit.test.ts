import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkApplicationFields, checkIssuerUrl, corsOriginOf, isHttpsUrl, isOnCdn, isSupportContact } from '../../src/applications/validation.js';
import { isAppError } from '../../src/errors/catalogue.js';

const CDN = ['https://cdn.latchkey.example/logos'];
const is400 = (err: unknown) => isAppError(err) && err.status === 400;

describe('application field rules', () => {
  it('wants https privacy policies', () => {
    assert.ok(isHttpsUrl('https://example.com/privacy'));
    for (const bad of ['http://example.com/privacy', 'https://', 'ftp://example.com', 'example.com', 'javascript:alert(1)']) assert.ok(!isHttpsUrl(bad), bad);
  });

  it('wants https or mailto support contacts', () => {
    assert.ok(isSupportContact('https://example.com/help'));
    assert.ok(isSupportContact('mailto:help@example.com'));
    for (const bad of ['mailto:', 'http://example.com', 'tel:+441234567890', 'help@example.com']) assert.ok(!isSupportContact(bad), bad);
  });

  it('wants logos on the CDN: same origin, under its path', () => {
    assert.ok(isOnCdn('https://cdn.latchkey.example/logos/applications/a/logo.png', CDN));
    for (const bad of [
      'https://cdn.latchkey.example.evil.com/logos/x.png',
      'http://cdn.latchkey.example/logos/x.png',
      'https://cdn.latchkey.example:8443/logos/x.png',
      'https://cdn.latchkey.example/other/x.png',
      'https://cdn.latchkey.example/logos',
      'https://user@cdn.latchkey.example/logos/x.png',
      'not a url',
    ]) assert.ok(!isOnCdn(bad, CDN), bad);
  });

  it('checks all fields together, null meaning cleared', () => {
    assert.doesNotThrow(() => checkApplicationFields({ privacyPolicy: null, supportContact: null, logoUrl: null, appLink: 'myapp://open' }, CDN));
    assert.throws(() => checkApplicationFields({ privacyPolicy: 'http://x.example' }, CDN), is400);
    assert.throws(() => checkApplicationFields({ supportContact: 'ftp://x.example' }, CDN), is400);
    assert.throws(() => checkApplicationFields({ logoUrl: 'https://elsewhere.example/logo.png' }, CDN), is400);
    assert.throws(() => checkApplicationFields({ appLink: 'no scheme' }, CDN), is400);
    assert.throws(() => checkApplicationFields({ emailPreferences: { callToAction: { actionTarget: 'javascript:alert(1)', headline: 'h', actionText: 't' } } }, CDN), is400);
  });

  it('reduces CORS domains to origins', () => {
    assert.equal(corsOriginOf('https://App.Example.com'), 'https://app.example.com');
    assert.equal(corsOriginOf('https://app.example.com:443/'), 'https://app.example.com');
    assert.equal(corsOriginOf('http://localhost:3000'), 'http://localhost:3000');
    for (const bad of ['app.example.com', 'ftp://app.example.com', 'https://app.example.com/path', 'https://u:p@app.example.com', 'https://app.example.com/?q=1']) {
      assert.throws(() => corsOriginOf(bad), is400, bad);
    }
  });

  it('takes issuers as absolute URIs other than the service itself', () => {
    assert.doesNotThrow(() => checkIssuerUrl('https://auth.example.com/', 'https://latchkey.example'));
    assert.throws(() => checkIssuerUrl('https://latchkey.example', 'https://latchkey.example'), is400);
    assert.throws(() => checkIssuerUrl('issuer', 'https://latchkey.example'), is400);
  });
});
