import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/**
 * Checkpoints as C2SP signed notes (c2sp.org/tlog-checkpoint, c2sp.org/signed-note), so that
 * tools written for transparency logs can read them:
 *
 *   <origin>\n<tree size, decimal>\n<root hash, Base64>\n
 *   \n
 *   — <key name> <Base64(key ID (4 bytes) || Ed25519 signature (64 bytes))>\n
 *
 * The signature covers the body (the first three lines with their newlines). The key ID is the
 * first 4 bytes of SHA-256(key name || 0x0A || 0x01 || public key); the verifier key is written
 * `<name>+<key ID, 8 hex digits>+<Base64(0x01 || public key)>`.
 */

const ED25519_TYPE = 0x01;
const SIGNATURE_PREFIX = '\u2014 ';

export interface Checkpoint {
  origin: string;
  size: number;
  root: Buffer;
}

export interface NoteVerifier {
  /** The verifier key as written: `<name>+<key id>+<Base64 key>`. */
  verifierKey: string;
  name: string;
  keyId: Buffer;
  publicKey: KeyObject;
}

export function keyId(name: string, publicKeyRaw: Uint8Array): Buffer {
  return createHash('sha256').update(name).update(Buffer.from([0x0a, ED25519_TYPE])).update(publicKeyRaw).digest().subarray(0, 4);
}

export function verifierKey(name: string, publicKeyRaw: Uint8Array): string {
  return `${name}+${keyId(name, publicKeyRaw).toString('hex')}+${Buffer.concat([Buffer.from([ED25519_TYPE]), publicKeyRaw]).toString('base64')}`;
}

/** Reads a verifier key; throws an Error naming what is wrong. */
export function parseVerifierKey(vkey: string): NoteVerifier {
  const match = /^([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+=*)$/.exec(vkey.trim());
  if (!match) throw new Error('verifier key must read <name>+<key id>+<Base64 key>');
  const [, name, id, key] = match as unknown as [string, string, string, string];
  const bytes = Buffer.from(key, 'base64');
  if (bytes.length !== 33 || bytes[0] !== ED25519_TYPE) throw new Error('verifier key is not an Ed25519 signed-note key');
  const raw = bytes.subarray(1);
  if (!keyId(name, raw).equals(Buffer.from(id, 'hex'))) throw new Error('verifier key ID does not match its name and key');
  const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
  return { verifierKey: vkey.trim(), name, keyId: Buffer.from(id, 'hex'), publicKey };
}

export function checkpointBody(checkpoint: Checkpoint): string {
  return `${checkpoint.origin}\n${checkpoint.size}\n${checkpoint.root.toString('base64')}\n`;
}

/** The signed note of a checkpoint. */
export function signCheckpoint(checkpoint: Checkpoint, name: string, privateKey: KeyObject, publicKeyRaw: Uint8Array): string {
  const body = checkpointBody(checkpoint);
  const signature = sign(null, Buffer.from(body), privateKey);
  return `${body}\n${SIGNATURE_PREFIX}${name} ${Buffer.concat([keyId(name, publicKeyRaw), signature]).toString('base64')}\n`;
}

/**
 * The checkpoint of a note carrying a valid signature by `verifier`; throws an Error saying why
 * not (malformed, not signed by this key, bad signature).
 */
export function openCheckpoint(note: string, verifier: NoteVerifier): Checkpoint {
  const split = note.indexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) throw new Error('checkpoint is not a signed note');
  const body = note.slice(0, split + 1);
  const lines = body.slice(0, -1).split('\n');
  if (lines.length < 3) throw new Error('checkpoint body must have an origin, a size and a root hash');
  const [origin, sizeText, rootText] = lines as [string, string, string];
  const root = Buffer.from(rootText, 'base64');
  if (!/^(0|[1-9]\d{0,15})$/.test(sizeText) || root.length !== 32 || root.toString('base64') !== rootText || origin === '') throw new Error('checkpoint body is malformed');
  let signed = false;
  for (const line of note.slice(split + 2, -1).split('\n')) {
    if (!line.startsWith(SIGNATURE_PREFIX)) throw new Error('checkpoint signature line is malformed');
    const [name, value] = line.slice(SIGNATURE_PREFIX.length).split(' ');
    const bytes = Buffer.from(value ?? '', 'base64');
    if (name !== verifier.name || bytes.length !== 68 || !bytes.subarray(0, 4).equals(verifier.keyId)) continue;
    if (!verify(null, Buffer.from(body), verifier.publicKey, bytes.subarray(4))) throw new Error('checkpoint signature is not valid');
    signed = true;
  }
  if (!signed) throw new Error(`checkpoint is not signed by ${verifier.name}`);
  return { origin, size: Number(sizeText), root };
}

/** The notes of a checkpoint file: each note followed by a blank line (checkpoint-signer.ts appends them so). */
export function splitCheckpointFile(text: string): string[] {
  const notes: string[] = [];
  const blocks = text.split('\n\n').map((b) => b.replace(/^\n+|\n+$/g, '')).filter((b) => b !== '');
  for (let i = 0; i + 1 < blocks.length; i += 2) notes.push(`${blocks[i]}\n\n${blocks[i + 1]}\n`);
  if (blocks.length % 2 === 1) throw new Error('checkpoint file ends with an unsigned body');
  return notes;
}
