import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAppError } from '../../src/errors/catalogue.js';
import { MAX_EXECUTE_BODY_BYTES, decodeOperationToken } from '../../src/operations/body.js';

// Decoding and verification are tested in test/crypto/operation-token.unit.test.ts; the execute
// path adds only its size limit.

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('decodeOperationToken (execute)', () => {
  it('decodes a token up to the execute body limit and refuses a longer one with 400', () => {
    const head = `${b64({ alg: 'EdDSA', typ: 'JWT' })}.${b64({ iss: 'someone' })}.`;
    const atLimit = head + 'A'.repeat(MAX_EXECUTE_BODY_BYTES - head.length);
    assert.equal(decodeOperationToken(atLimit).payload.iss, 'someone');
    assert.throws(() => decodeOperationToken(`${atLimit}A`), (error: unknown) => isAppError(error) && error.status === 400);
  });
});
