import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { consistencyPath, Frontier, inclusionPath, leafHash, subtreeHash, type NodeLookup } from '../../src/audit/merkle.js';
import * as client from '../../src/audit/merkle-verify.js';
import { openCheckpoint, parseVerifierKey, signCheckpoint, splitCheckpointFile, verifierKey } from '../../src/audit/note.js';
import * as rfc from './rfc9162.js';

const data = Array.from({ length: 70 }, (_, i) => Buffer.from(`entry ${i}`));

/** The stored nodes as the service would have written them, by appending every leaf. */
function storedNodes(count: number): NodeLookup {
  const nodes = new Map<string, Buffer>();
  const tree = new Frontier();
  for (const d of data.slice(0, count)) for (const [level, index, hash] of tree.append(leafHash(d))) nodes.set(`${level}/${index}`, hash);
  return (level, index) => {
    const hash = nodes.get(`${level}/${index}`);
    if (!hash) throw new Error(`no node ${level}/${index}`);
    return hash;
  };
}

describe('audit Merkle tree (against an independent RFC 9162 implementation)', () => {
  it('has the root of MTH for every size, from the frontier and from the stored nodes', () => {
    const tree = new Frontier();
    assert.deepEqual(tree.root(), rfc.mth([]));
    for (let n = 1; n <= data.length; n++) {
      tree.append(leafHash(data[n - 1]!));
      assert.deepEqual(tree.root(), rfc.mth(data.slice(0, n)), `frontier root at ${n}`);
      assert.deepEqual(subtreeHash(storedNodes(data.length), 0, n), rfc.mth(data.slice(0, n)), `stored root at ${n}`);
      assert.deepEqual(Frontier.decode(n, tree.encode()).root(), tree.root());
    }
  });

  it('makes the RFC inclusion proofs, which the RFC algorithm accepts, and nothing else', () => {
    const nodes = storedNodes(data.length);
    for (const n of [1, 2, 3, 7, 8, 9, 33, 70]) {
      const root = rfc.mth(data.slice(0, n));
      for (let m = 0; m < n; m++) {
        const proof = inclusionPath(nodes, m, 0, n);
        assert.deepEqual(proof, rfc.path(m, data.slice(0, n)), `PATH(${m}, D[${n}])`);
        assert.ok(rfc.verifyInclusion(m, n, rfc.leaf(data[m]!), proof, root));
        assert.ok(client.verifyInclusion(data[m]!, m, n, proof, root));
        assert.ok(!rfc.verifyInclusion(m, n, rfc.leaf(Buffer.from('forged')), proof, root));
        if (n > 1) assert.ok(!client.verifyInclusion(data[m]!, (m + 1) % n, n, proof, root));
      }
    }
  });

  it('makes the RFC consistency proofs, which the RFC algorithm accepts, and refuses a rewritten past', () => {
    const nodes = storedNodes(data.length);
    for (const n of [1, 2, 5, 8, 13, 64, 70]) {
      for (let m = 1; m <= n; m++) {
        const proof = consistencyPath(nodes, m, n);
        assert.deepEqual(proof, rfc.proof(m, data.slice(0, n)), `PROOF(${m}, D[${n}])`);
        const [first, second] = [rfc.mth(data.slice(0, m)), rfc.mth(data.slice(0, n))];
        assert.ok(rfc.verifyConsistency(m, n, first, second, proof));
        assert.ok(client.verifyConsistency(m, n, first, second, proof));
        const rewritten = rfc.mth([Buffer.from('rewritten'), ...data.slice(1, m)]);
        if (m < n) assert.ok(!client.verifyConsistency(m, n, rewritten, second, proof));
      }
    }
  });
});

describe('checkpoint notes (C2SP signed note)', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
  const origin = 'latchkey.test/audit';
  const checkpoint = { origin, size: 12, root: rfc.mth(data.slice(0, 12)) };
  const note = signCheckpoint(checkpoint, origin, privateKey, raw);

  it('has the tlog-checkpoint layout and opens with its verifier key', () => {
    const lines = note.split('\n');
    assert.equal(lines[0], origin);
    assert.equal(lines[1], '12');
    assert.equal(lines[2], checkpoint.root.toString('base64'));
    assert.equal(lines[3], '');
    assert.match(lines[4]!, /^\u2014 latchkey\.test\/audit [A-Za-z0-9+/]+=*$/);
    assert.deepEqual(openCheckpoint(note, parseVerifierKey(verifierKey(origin, raw))), checkpoint);
    assert.deepEqual(parseVerifierKey(verifierKey(origin, raw)).publicKey.export({ format: 'der', type: 'spki' }).subarray(12), raw);
  });

  it('refuses a changed size or root, another key and a malformed note', () => {
    const verifier = parseVerifierKey(verifierKey(origin, raw));
    assert.throws(() => openCheckpoint(note.replace('\n12\n', '\n13\n'), verifier), /not valid/);
    const other = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
    assert.throws(() => openCheckpoint(note, parseVerifierKey(verifierKey(origin, other))), /not signed by/);
    assert.throws(() => openCheckpoint('no note', verifier), /signed note/);
    assert.throws(() => parseVerifierKey(verifierKey(origin, raw).replace(/\+[0-9a-f]{8}\+/, '+00000000+')), /key ID/);
  });

  it('reads back a file of notes each followed by a blank line', () => {
    const second = signCheckpoint({ ...checkpoint, size: 13, root: rfc.mth(data.slice(0, 13)) }, origin, privateKey, raw);
    assert.deepEqual(splitCheckpointFile(`${note}\n${second}\n`), [note, second]);
  });
});
