import { keypadBoxFromSecretHash, keypadSealContext } from '../crypto/keypad-seal.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { ConfigCode } from '../device-protocol/payloads.js';
import type { Executor } from '../db/transaction.js';
import { statusOnLock } from './presenters.js';
import { codeTravels } from './policy.js';
import { findCodes, holderMemberships } from './queries.js';
import { sealContext } from './digits.js';

/**
 * The codes each lock's configuration carries (device protocol 1.5, `config.codes`): those that may
 * open now or later (not revoked, used up, expired, nor ended with their holder's access), each with
 * the ADD_CODE an administrator signed, the digits sealed for that lock alone (its keypad key,
 * src/crypto/keypad-seal.ts), and the uses counted on the code's other locks.
 */
export async function configCodes(db: Executor, box: SecretBox, lockIds: readonly string[], now: number): Promise<Map<string, ConfigCode[]>> {
  const out = new Map<string, ConfigCode[]>();
  if (lockIds.length === 0) return out;
  const placed = await db.selectFrom('keypad_code_locks').select('code_id').distinct().where('lock_id', 'in', [...lockIds]).where('removed_at', 'is', null).execute();
  if (placed.length === 0) return out;
  const codeIds = placed.map((row) => row.code_id);
  const codes = new Map((await findCodes(db, codeIds)).map((code) => [code.id, code]));
  // Every place of these codes: uses elsewhere count too.
  const rows = await db.selectFrom('keypad_code_locks').selectAll().where('code_id', 'in', codeIds).execute();
  const secrets = new Map((await db.selectFrom('locks').select(['id', 'secret_hash']).where('id', 'in', [...lockIds]).execute()).map((lock) => [lock.id, lock.secret_hash]));
  const holders = rows.flatMap((row) => {
    const holder = codes.get(row.code_id)?.holder_user_id;
    return holder && lockIds.includes(row.lock_id) ? [{ lockId: row.lock_id, userId: holder }] : [];
  });
  const memberships = await holderMemberships(db, holders);
  const totals = new Map<string, number>();
  for (const row of rows) totals.set(row.code_id, (totals.get(row.code_id) ?? 0) + row.uses);
  const keys = new Map<string, SecretBox>();
  for (const row of rows) {
    const code = codes.get(row.code_id);
    const secretHash = secrets.get(row.lock_id);
    if (!code || secretHash === undefined || row.removed_at !== null) continue;
    const uses = totals.get(code.id) ?? 0;
    const membership = code.holder_user_id === null ? undefined : memberships.get(`${row.lock_id}:${code.holder_user_id}`);
    if (!codeTravels(statusOnLock(code, row, uses, membership, now))) continue;
    let key = keys.get(row.lock_id);
    if (key === undefined) keys.set(row.lock_id, (key = keypadBoxFromSecretHash(secretHash, row.lock_id)));
    const digits = box.open(code.sealed, sealContext(code.id));
    const list = out.get(row.lock_id) ?? [];
    list.push({ id: code.id, token: row.token, sealed: key.seal(digits, keypadSealContext(row.lock_id, code.id)), usedElsewhere: uses - row.uses });
    out.set(row.lock_id, list);
  }
  return out;
}
