import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { Config } from '../config/config.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { Database } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import { parseVerifierKey, verifierKey, type NoteVerifier } from './note.js';

const SECRET_NAME = 'audit-checkpoint-key';
const SEAL_CONTEXT = `sealed-secret:${SECRET_NAME}`;

/** The key that signs checkpoints, and what a verifier needs of it. */
export interface CheckpointKey {
  /** The note's origin and the key's name: BASE_URL's host and path + "/audit" when the key was created. */
  origin: string;
  privateKey: KeyObject;
  publicKeyRaw: Buffer;
  /** The signed-note verifier key, `<origin>+<key id>+<Base64 key>`: publish it, give it to auditors. */
  verifierKey: string;
  verifier: NoteVerifier;
}

/** `latchkey.example.com/audit` for BASE_URL https://latchkey.example.com. */
export function checkpointOrigin(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.host}${url.pathname.replace(/\/+$/, '')}/audit`;
}

function fromPkcs8(origin: string, pkcs8: Buffer): CheckpointKey {
  const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const publicKeyRaw = spki.subarray(spki.length - 32);
  const vkey = verifierKey(origin, publicKeyRaw);
  return { origin, privateKey, publicKeyRaw, verifierKey: vkey, verifier: parseVerifierKey(vkey) };
}

/** What is sealed: the key and its name, fixed when it is created (a later BASE_URL does not rename the log). */
interface SealedKey {
  name: string;
  pkcs8: string;
}

/**
 * The Ed25519 checkpoint key, kept in `sealed_secrets` sealed by the key-encryption key (never in
 * plain in the database): someone who can only write to the database cannot sign. Created on
 * first use; every instance sharing the database signs with the same key.
 */
export async function loadCheckpointKey(deps: { db: Database; box: SecretBox; config: Pick<Config, 'baseUrl'>; now: () => number }, create = true): Promise<CheckpointKey | null> {
  const row = await deps.db.kysely.selectFrom('sealed_secrets').select('value_sealed').where('name', '=', SECRET_NAME).executeTakeFirst();
  if (row) {
    const sealed = JSON.parse(deps.box.open(row.value_sealed, SEAL_CONTEXT).toString('utf8')) as SealedKey;
    return fromPkcs8(sealed.name, Buffer.from(sealed.pkcs8, 'base64'));
  }
  if (!create) return null;
  const origin = checkpointOrigin(deps.config.baseUrl);
  const pkcs8 = generateKeyPairSync('ed25519').privateKey.export({ format: 'der', type: 'pkcs8' });
  const sealed: SealedKey = { name: origin, pkcs8: pkcs8.toString('base64') };
  try {
    await deps.db.kysely.insertInto('sealed_secrets').values({ name: SECRET_NAME, value_sealed: deps.box.seal(JSON.stringify(sealed), SEAL_CONTEXT), created: deps.now() }).execute();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return loadCheckpointKey(deps, false); // another instance created it first
  }
  return fromPkcs8(origin, pkcs8);
}
