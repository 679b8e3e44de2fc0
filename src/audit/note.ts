import { createPublicKey, hash, sign, verify, type KeyObject } from 'node:crypto';
import { checkpointBody, formatVerifierKey, keyIdInput, readCheckpointNote, readVerifierKey, signedNote } from './log-format.js';

/**
 * Checkpoints as C2SP signed notes, signed and checked with node:crypto; their format is
 * log-format.ts's (shared with the console, which checks them with WebCrypto).
 */

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

function keyId(name: string, publicKeyRaw: Uint8Array): Buffer {
  return hash('sha256', keyIdInput(name, publicKeyRaw), 'buffer').subarray(0, 4);
}

export function verifierKey(name: string, publicKeyRaw: Uint8Array): string {
  return formatVerifierKey(name, keyId(name, publicKeyRaw), publicKeyRaw);
}

/** Reads a verifier key; throws an Error naming what is wrong. */
export function parseVerifierKey(vkey: string): NoteVerifier {
  const { name, keyId: id, publicKeyRaw } = readVerifierKey(vkey);
  if (!keyId(name, publicKeyRaw).equals(id)) throw new Error('verifier key ID does not match its name and key');
  const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKeyRaw).toString('base64url') }, format: 'jwk' });
  return { verifierKey: vkey.trim(), name, keyId: Buffer.from(id), publicKey };
}

/** The signed note of a checkpoint. */
export function signCheckpoint(checkpoint: Checkpoint, name: string, privateKey: KeyObject, publicKeyRaw: Uint8Array): string {
  const body = checkpointBody(checkpoint);
  return signedNote(body, name, keyId(name, publicKeyRaw), sign(null, Buffer.from(body), privateKey));
}

/**
 * The checkpoint of a note carrying a valid signature by `verifier`; throws an Error saying why
 * not (malformed, not signed by this key, bad signature).
 */
export function openCheckpoint(note: string, verifier: NoteVerifier): Checkpoint {
  const { checkpoint, body, signatures } = readCheckpointNote(note, verifier);
  const signed = Buffer.from(body);
  if (!signatures.every((signature) => verify(null, signed, verifier.publicKey, signature))) throw new Error('checkpoint signature is not valid');
  if (signatures.length === 0) throw new Error(`checkpoint is not signed by ${verifier.name}`);
  return { ...checkpoint, root: Buffer.from(checkpoint.root) };
}

/** The notes of a checkpoint file: each note followed by a blank line (checkpoint-signer.ts appends them so). */
export function splitCheckpointFile(text: string): string[] {
  const notes: string[] = [];
  const blocks = text.split('\n\n').map((b) => b.replace(/^\n+|\n+$/g, '')).filter((b) => b !== '');
  for (let i = 0; i + 1 < blocks.length; i += 2) notes.push(`${blocks[i]}\n\n${blocks[i + 1]}\n`);
  if (blocks.length % 2 === 1) throw new Error('checkpoint file ends with an unsigned body');
  return notes;
}
