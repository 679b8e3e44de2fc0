import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAppError } from '../../src/errors/catalogue.js';
import { MAX_EXECUTE_BODY_BYTES, extractCompactJws } from '../../src/operations/body.js';

const TOKEN = 'eyJhbGciOiJFZERTQSJ9.eyJpc3MiOiJ4In0.c2lnbmF0dXJl';

function failsWith(status: number, body: Buffer | string, contentType: string | undefined): void {
  assert.throws(() => extractCompactJws(body, contentType), (error: unknown) => isAppError(error) && error.status === status);
}

describe('extractCompactJws', () => {
  it('takes the raw token from application/jwt, text/plain, application/json and no content type', () => {
    for (const contentType of ['application/jwt', 'text/plain', 'application/json', 'application/json;charset=UTF-8', 'Application/JSON; charset=utf-8', undefined]) {
      assert.equal(extractCompactJws(TOKEN, contentType), TOKEN, String(contentType));
      assert.equal(extractCompactJws(Buffer.from(TOKEN), contentType), TOKEN, String(contentType));
    }
  });

  it('trims surrounding whitespace', () => {
    assert.equal(extractCompactJws(`\n  ${TOKEN}\r\n`, 'application/jwt'), TOKEN);
  });

  it('unquotes a token sent as a JSON string', () => {
    assert.equal(extractCompactJws(` "${TOKEN}" `, 'application/json'), TOKEN);
    assert.equal(extractCompactJws(Buffer.from(JSON.stringify(TOKEN)), 'application/vnd.doordeck.api-v1+json'), TOKEN);
  });

  it('refuses other content types with 415', () => {
    failsWith(415, TOKEN, 'application/x-www-form-urlencoded');
    failsWith(415, TOKEN, 'multipart/form-data; boundary=x');
  });

  it('refuses bodies over 16 KiB with 400', () => {
    const padding = 'A'.repeat(MAX_EXECUTE_BODY_BYTES);
    failsWith(400, `${TOKEN}${padding}`, 'application/jwt');
    assert.equal(extractCompactJws(`x.y.${'A'.repeat(MAX_EXECUTE_BODY_BYTES - 4)}`, 'application/jwt').length, MAX_EXECUTE_BODY_BYTES);
  });

  it('refuses anything that is not three dot-separated segments with 400', () => {
    for (const body of ['', 'abc', 'a.b', 'a.b.c.d', 'a.b.c.d.e', '{"token":"a.b.c"}', '"a.b"', '"a.b.c', '42']) {
      failsWith(400, body, 'application/json');
    }
  });
});
