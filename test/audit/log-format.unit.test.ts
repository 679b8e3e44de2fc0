import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  auditEntryPreimage, auditEntryPreimagePieces, equalBytes, keyIdInput, leafInput, nodeInput, readCheckpointNote, rootFromInclusionProof, rootsFromConsistencyProof, type NodeHasher,
} from '../../src/audit/log-format.js';
import { consistencyPath, Frontier, inclusionPath, leafHash, type NodeLookup } from '../../src/audit/merkle.js';
import { parseVerifierKey, signCheckpoint, verifierKey } from '../../src/audit/note.js';
import * as rfc from './rfc9162.js';

/** The console's way: WebCrypto, each hash a promise (console/src/api/audit-proof.ts). */
const sha256 = async (bytes: Uint8Array) => new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
const node: NodeHasher<Promise<Uint8Array>> = async (left, right) => sha256(nodeInput(await left, await right));
const promised = (hashes: Uint8Array[]) => hashes.map((hash) => Promise.resolve(hash));

const data = Array.from({ length: 40 }, (_, i) => Buffer.from(`entry ${i}`));
const nodes = new Map<string, Buffer>();
const tree = new Frontier();
for (const d of data) for (const [level, index, hash] of tree.append(leafHash(d))) nodes.set(`${level}/${index}`, hash);
const lookup: NodeLookup = (level, index) => nodes.get(`${level}/${index}`)!;

describe('the audit log formats shared with the console (src/audit/log-format.ts)', () => {
  it('is pure: imports nothing, so it bundles for the browser', () => {
    const code = readFileSync('src/audit/log-format.ts', 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    assert.doesNotMatch(code, /^\s*import\b|\brequire\(|\bBuffer\b|\bprocess\./m);
  });

  it('splits a format-3 preimage around the parties and the previous hash, which joined with their JSON give it back', () => {
    const own = {
      version: 3 as const, lockId: 'l1', timestamp: 1700000000.5, type: 'LOCK_SHARED', actorUserId: 'u1', subjectUserId: null, rejected: false,
      message: 'a "quoted" \\ message \u2028', actorIp: '192.0.2.1', userAgent: { type: 'web', version: null },
    };
    const parties = { actorDisplayName: 'Ann\n"O"', actorEmail: 'ann@example.com', subjectDisplayName: null, subjectEmail: 'b\u0001@example.com' };
    const previousHash = 'ab'.repeat(32);
    for (const details of [undefined, null, { z: 1, a: [true, { y: 'ü' }] }]) {
      const pieces = auditEntryPreimagePieces({ ...own, details });
      const values = [parties.actorDisplayName, parties.actorEmail, previousHash, parties.subjectDisplayName, parties.subjectEmail];
      assert.equal(pieces.length, values.length + 1);
      const joined = pieces.map((piece, i) => piece + (i < values.length ? JSON.stringify(values[i]) : '')).join('');
      assert.equal(joined, auditEntryPreimage(previousHash, { ...own, ...parties, details }));
    }
  });

  it('folds inclusion proofs over promised WebCrypto hashes to the root the service computes', async () => {
    for (const n of [1, 2, 3, 7, 8, 9, 33, 40]) {
      const root = rfc.mth(data.slice(0, n));
      for (let m = 0; m < n; m++) {
        const proof = promised(inclusionPath(lookup, m, 0, n));
        const computed = rootFromInclusionProof(sha256(leafInput(data[m]!)), m, n, proof, node);
        assert.ok(computed && equalBytes(await computed, root), `leaf ${m} of ${n}`);
        const elsewhere = rootFromInclusionProof(sha256(leafInput(data[m]!)), (m + 1) % n, n, proof, node);
        if (n > 1) assert.ok(elsewhere === null || !equalBytes(await elsewhere, root), `leaf ${m} of ${n} at another index`);
      }
    }
  });

  it('folds consistency proofs over promised hashes to both signed roots, and not from a rewritten past', async () => {
    for (const n of [1, 2, 5, 8, 13, 40]) {
      for (let m = 1; m <= n; m++) {
        const [first, second] = [rfc.mth(data.slice(0, m)), rfc.mth(data.slice(0, n))];
        const proof = promised(consistencyPath(lookup, m, n));
        const roots = rootsFromConsistencyProof(m, n, Promise.resolve(first), proof, node);
        assert.ok(roots && equalBytes(await roots.first, first) && equalBytes(await roots.second, second), `${m} → ${n}`);
        const rewritten = rfc.mth([Buffer.from('rewritten'), ...data.slice(1, m)]);
        const forged = rootsFromConsistencyProof(m, n, Promise.resolve(rewritten), proof, node);
        if (m < n) assert.ok(forged === null || !equalBytes(await forged.first, rewritten) || !equalBytes(await forged.second, second), `${m} → ${n} rewritten`);
      }
    }
  });

  it('reads a note\'s signatures by its signer only, and refuses a malformed note', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
    const origin = 'latchkey.test/audit';
    const note = signCheckpoint({ origin, size: 3, root: rfc.mth(data.slice(0, 3)) }, origin, privateKey, raw);
    const verifier = parseVerifierKey(verifierKey(origin, raw));
    assert.ok(equalBytes((await sha256(keyIdInput(origin, raw))).subarray(0, 4), verifier.keyId), 'the key ID hashes keyIdInput');
    const witnessed = `${note}\u2014 witness.example AAAA${'A'.repeat(88)}\n`;
    const read = readCheckpointNote(witnessed, verifier);
    assert.equal(read.signatures.length, 1);
    assert.deepEqual({ ...read.checkpoint, root: Buffer.from(read.checkpoint.root) }, { origin, size: 3, root: rfc.mth(data.slice(0, 3)) });
    assert.equal(read.body, note.slice(0, note.indexOf('\n\n') + 1));
    assert.equal(readCheckpointNote(note, { ...verifier, keyId: Buffer.from([0, 0, 0, 0]) }).signatures.length, 0, 'another key ID');
    assert.throws(() => readCheckpointNote(note.replace('\n3\n', '\n03\n'), verifier), /malformed/);
    assert.throws(() => readCheckpointNote(note.replace(/\n$/, ''), verifier), /signed note/);
    assert.throws(() => readCheckpointNote(`${note}stray line\n`, verifier), /signature line/);
  });
});
