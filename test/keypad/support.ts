import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AnyUser } from '../helpers/factories.js';
import type { TestService } from '../helpers/service.js';
import { signed, type Signer } from '../execute/support.js';

/** An ADD_CODE's terms, without its type and code id. */
export interface CodeTerms {
  user?: string;
  guest?: string;
  start?: number;
  end?: number;
  schedule?: Array<{ start: string; end: string; timezone: string; days: string[] }>;
  maxUses?: number;
}

export const addCode = (signer: Signer, lockId: string, code: string, terms: CodeTerms) => signed(signer, lockId, { type: 'ADD_CODE', code, ...terms });
export const removeCode = (signer: Signer, lockId: string, code: string) => signed(signer, lockId, { type: 'REMOVE_CODE', code });

/** POST /lock-codes with an ADD_CODE for each lock; returns the response. */
export function postCode(t: TestService, admin: Signer, lockIds: string[], terms: CodeTerms, extra: { digits?: string; length?: number; code?: string } = {}) {
  const code = extra.code ?? randomUUID();
  const { code: _code, ...body } = extra;
  return t.api.post('/lock-codes', { token: admin.authToken, body: { tokens: lockIds.map((lockId) => addCode(admin, lockId, code, terms)), ...body } });
}

/** A code made through the API (201 asserted): its id and its digits (typed or generated). */
export async function makeCode(t: TestService, admin: Signer, lockIds: string[], terms: CodeTerms, digits?: string): Promise<{ id: string; digits: string }> {
  const res = await postCode(t, admin, lockIds, terms, digits === undefined ? {} : { digits });
  assert.equal(res.status, 201, res.text);
  return { id: res.body.code.id, digits: digits ?? res.body.digits };
}

/** The code's state on `lockId` as its administrator reads it. */
export async function codeOnLock(t: TestService, admin: AnyUser, codeId: string, lockId: string) {
  const res = await t.api.get(`/lock-codes/${codeId}`, { token: admin.authToken });
  assert.equal(res.status, 200, res.text);
  return (res.body.locks as Array<{ lockId: string; status: string; uses: number; sync: { state: string; error: string | null } }>).find((l) => l.lockId === lockId);
}

/**
 * Fails naming where `digits` appear in `haystack` (any JSON value or text) as a number of their
 * own: inside a longer number (a timestamp, a port) they are not the code.
 */
export function assertNoDigits(haystack: unknown, digits: string, where: string): void {
  const text = typeof haystack === 'string' ? haystack : JSON.stringify(haystack);
  assert.ok(!new RegExp(`(?<![0-9])${digits}(?![0-9])`).test(text), `the code's digits appear in ${where}`);
}
