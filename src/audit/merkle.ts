import { hash } from 'node:crypto';
import { isPowerOfTwo, leafInput, nodeInput } from './log-format.js';

/**
 * The Merkle tree over the whole audit log (docs/audit-log.md), hashed as RFC 9162 §2.1.1:
 *
 *   leaf hash  = SHA-256(0x00 || leaf data)
 *   node hash  = SHA-256(0x01 || left || right)
 *   MTH({})    = SHA-256()
 *
 * (the bytes hashed are log-format.ts's, shared with the console). Only perfect subtrees are
 * stored, as nodes (level, index) covering leaves [index·2^level, (index+1)·2^level); any other
 * subtree hash is computed from them. The functions here take a synchronous `node(level, index)` lookup, so that callers can first collect the keys
 * they need (`neededNodes`), read them in one query, then compute.
 */

export type Hash = Buffer;
export type NodeLookup = (level: number, index: number) => Hash;

// One-shot hashes: a Hash object per call cost ≈ 0.35 µs more, and an audit entry makes three or
// four. Inputs in pooled Buffers: a Uint8Array of its own costs ≈ 0.4 µs more a hash.
export function leafHash(data: Uint8Array): Hash {
  return hash('sha256', leafInput(data, Buffer.allocUnsafe(1 + data.length)), 'buffer');
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Hash {
  return hash('sha256', nodeInput(left, right, Buffer.allocUnsafe(1 + left.length + right.length)), 'buffer');
}

export const EMPTY_ROOT: Hash = hash('sha256', Buffer.alloc(0), 'buffer');

/** The largest power of two smaller than n (n ≥ 2). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D[start:end]) for a range the RFC's splitting produces (start a multiple of the largest power of two ≤ its length). */
export function subtreeHash(node: NodeLookup, start: number, end: number): Hash {
  const n = end - start;
  if (n === 0) return EMPTY_ROOT;
  if (isPowerOfTwo(n)) {
    return node(Math.round(Math.log2(n)), start / n);
  }
  const k = splitPoint(n);
  return nodeHash(subtreeHash(node, start, start + k), subtreeHash(node, start + k, end));
}

/** PATH(m, D[start:end]) of RFC 9162 §2.1.3.1, nearest sibling first. */
export function inclusionPath(node: NodeLookup, m: number, start: number, end: number): Hash[] {
  const n = end - start;
  if (n <= 1) return [];
  const k = splitPoint(n);
  if (m < k) return [...inclusionPath(node, m, start, start + k), subtreeHash(node, start + k, end)];
  return [...inclusionPath(node, m - k, start + k, end), subtreeHash(node, start, start + k)];
}

/** SUBPROOF(m, D[start:end], b) of RFC 9162 §2.1.4.1. */
function subproof(node: NodeLookup, m: number, start: number, end: number, whole: boolean): Hash[] {
  const n = end - start;
  if (m === n) return whole ? [] : [subtreeHash(node, start, end)];
  const k = splitPoint(n);
  if (m <= k) return [...subproof(node, m, start, start + k, whole), subtreeHash(node, start + k, end)];
  return [...subproof(node, m - k, start + k, end, false), subtreeHash(node, start, start + k)];
}

/** The consistency proof from tree size m to tree size n (0 < m ≤ n); empty when m = n. */
export function consistencyPath(node: NodeLookup, m: number, n: number): Hash[] {
  if (m <= 0 || m > n) throw new RangeError('consistency proof needs 0 < m ≤ n');
  return m === n ? [] : subproof(node, m, 0, n, true);
}

/**
 * Runs `compute` once to learn which nodes it reads, fetches them all at once, then runs it for
 * real: proofs cost one query of O(log n) keys.
 */
export async function withNodes<T>(compute: (node: NodeLookup) => T, fetch: (keys: Array<[number, number]>) => Promise<Map<string, Hash>>): Promise<T> {
  const keys = new Map<string, [number, number]>();
  const blank = Buffer.alloc(32);
  compute((level, index) => {
    keys.set(`${level}/${index}`, [level, index]);
    return blank;
  });
  const found = await fetch([...keys.values()]);
  return compute((level, index) => {
    const hash = found.get(`${level}/${index}`);
    if (hash === undefined) throw new MissingNodeError(level, index);
    return hash;
  });
}

export class MissingNodeError extends Error {
  constructor(readonly level: number, readonly index: number) {
    super(`audit tree node ${level}/${index} is missing`);
  }
}

/**
 * The right edge of a tree: the roots of its perfect subtrees, largest first (one per set bit of
 * its size). Appending is O(log n) and yields the perfect nodes the append completed.
 */
export class Frontier {
  constructor(public size = 0, readonly hashes: Hash[] = []) {}

  /** Appends a leaf hash; returns the nodes completed by it, leaf first, as [level, index, hash]. */
  append(leaf: Hash): Array<[number, number, Hash]> {
    const index = this.size;
    const completed: Array<[number, number, Hash]> = [[0, index, leaf]];
    let carry = leaf;
    for (let level = 0; Math.floor(index / 2 ** level) % 2 === 1; level++) {
      carry = nodeHash(this.hashes.pop()!, carry);
      completed.push([level + 1, Math.floor(index / 2 ** (level + 1)), carry]);
    }
    this.hashes.push(carry);
    this.size += 1;
    return completed;
  }

  root(): Hash {
    if (this.hashes.length === 0) return EMPTY_ROOT;
    let root = this.hashes[this.hashes.length - 1]!;
    for (let i = this.hashes.length - 2; i >= 0; i--) root = nodeHash(this.hashes[i]!, root);
    return root;
  }

  /** The hashes concatenated, as stored in the tree head. */
  encode(): Buffer {
    return Buffer.concat(this.hashes);
  }

  static decode(size: number, bytes: Uint8Array): Frontier {
    const hashes: Hash[] = [];
    for (let i = 0; i < bytes.length; i += 32) hashes.push(Buffer.from(bytes.subarray(i, i + 32)));
    return new Frontier(size, hashes);
  }
}
