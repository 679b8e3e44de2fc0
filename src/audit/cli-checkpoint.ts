import { existsSync } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import { UsageError, optionPath, printer, type Command } from '../command-line/command.js';
import { withDatabase } from '../command-line/database.js';
import { checkpointVerifier } from './cli.js';
import { verifyConsistency } from './merkle-verify.js';
import { openCheckpoint, parseVerifierKey, splitCheckpointFile, type Checkpoint, type NoteVerifier } from './note.js';
import { latestCheckpoint } from './proofs.js';

/** GET a JSON document of the service; throws a plain Error saying what failed. */
async function getJson<T>(base: string, path: string): Promise<T> {
  const response = await fetch(new URL(path, `${base.replace(/\/+$/, '')}/`));
  if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
  return (await response.json()) as T;
}

/** The newest checkpoint kept in `file` (the witness's own copy), if any. */
async function lastKept(file: string, verifier: NoteVerifier): Promise<Checkpoint | undefined> {
  if (!existsSync(file)) return undefined;
  const notes = splitCheckpointFile(await readFile(file, 'utf8'));
  return notes.map((note) => openCheckpoint(note, verifier)).reduce<Checkpoint | undefined>((a, b) => (a && a.size > b.size ? a : b), undefined);
}

/**
 * As a witness: fetches the service's latest checkpoint, checks its signature with the key the
 * witness holds and, when it keeps checkpoints in `save`, proves with the service's consistency
 * proof that the log only grew since the newest one it kept, then keeps the new one.
 */
async function witness(url: string, vkey: string | undefined, save: string | undefined, print: (line: string) => void): Promise<number> {
  const key = vkey ?? (await getJson<{ verifierKey: string }>(url, 'audit/checkpoint/key')).verifierKey;
  const verifier = parseVerifierKey(key);
  const { checkpoint: note } = await getJson<{ checkpoint: string }>(url, 'audit/checkpoint');
  const current = openCheckpoint(note, verifier);
  const kept = save ? await lastKept(save, verifier) : undefined;
  if (kept && kept.size > current.size) throw new Error(`the log shrank: a checkpoint of ${kept.size} entries was kept, the service now signs ${current.size}`);
  if (kept) {
    const { proof } = await getJson<{ proof: string[] }>(url, `audit/proof/consistency?from=${kept.size}&to=${current.size}`);
    if (!verifyConsistency(kept.size, current.size, kept.root, current.root, proof.map((h) => Buffer.from(h, 'base64')))) {
      throw new Error(`the log was rewritten: the checkpoint of ${kept.size} entries kept earlier is not a prefix of the one of ${current.size}`);
    }
  }
  if (save && (!kept || kept.size < current.size)) await appendFile(save, `${note}\n`);
  print(note.trimEnd());
  print('');
  print(`verifier key: ${verifier.verifierKey}${vkey ? '' : ' (fetched from the service: pass --key to pin it)'}`);
  if (kept) print(`consistent with the checkpoint of ${kept.size} entries kept in ${save}`);
  return 0;
}

/**
 * `latchkey audit checkpoint`: prints the latest signed checkpoint and the verifier key, from the
 * local database, or with `--url` from a running service as a witness (docs/audit-log.md).
 */
export const auditCheckpointCommand: Command = {
  path: ['audit', 'checkpoint'],
  summary: 'Print the latest signed audit checkpoint and its key; with --url, witness a service',
  usage: 'audit checkpoint [--url BASE_URL [--key VERIFIER_KEY] [--save FILE]]',
  options: {
    url: { type: 'string', description: 'witness a running service: fetch its checkpoint from this base URL and check that the log only grew' },
    key: { type: 'string', description: 'with --url: the verifier key the checkpoints must be signed with (default: the service\'s own, as fetched)' },
    save: { type: 'string', description: 'with --url: the file keeping the checkpoints witnessed so far (appended to after each check)' },
  },
  async run(values, io) {
    const print = printer(io.stdout);
    const url = typeof values.url === 'string' ? values.url : undefined;
    const key = typeof values.key === 'string' ? values.key : undefined;
    const save = optionPath(values, 'save', io);
    if (url !== undefined) {
      if (!/^https?:\/\//.test(url)) throw new UsageError('--url must be the service’s http(s) base URL');
      return witness(url, key, save, print);
    }
    if (save !== undefined) throw new UsageError('--save needs --url');
    return withDatabase(io, async (db, config) => {
      const verifier = await checkpointVerifier(config, db, key);
      const checkpoint = await latestCheckpoint(db.kysely);
      if (!checkpoint || !verifier) throw new Error('no signed checkpoint yet (the service signs one after the first audit entry)');
      openCheckpoint(checkpoint.note, verifier);
      print(checkpoint.note.trimEnd());
      print('');
      print(`verifier key: ${verifier.verifierKey}`);
      return 0;
    });
  },
};
