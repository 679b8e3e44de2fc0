import { createHash } from 'node:crypto';

/**
 * An independent RFC 9162 implementation for the tests, written from the RFC's definitions
 * (§2.1.1 MTH, §2.1.3.1 PATH, §2.1.4.1 PROOF/SUBPROOF, §2.1.3.2 and §2.1.4.2 verification),
 * sharing no code with src/audit.
 */

const sha = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
export const leaf = (d: Buffer) => sha(Buffer.from([0]), d);
const node = (l: Buffer, r: Buffer) => sha(Buffer.from([1]), l, r);
function k(n: number): number {
  let p = 1;
  while (p * 2 < n) p *= 2;
  return p;
}

/** MTH(D[n]) over leaf data `d`. */
export function mth(d: Buffer[]): Buffer {
  if (d.length === 0) return sha();
  if (d.length === 1) return leaf(d[0]!);
  const s = k(d.length);
  return node(mth(d.slice(0, s)), mth(d.slice(s)));
}

export function path(m: number, d: Buffer[]): Buffer[] {
  if (d.length <= 1) return [];
  const s = k(d.length);
  return m < s ? [...path(m, d.slice(0, s)), mth(d.slice(s))] : [...path(m - s, d.slice(s)), mth(d.slice(0, s))];
}

function subproof(m: number, d: Buffer[], b: boolean): Buffer[] {
  if (m === d.length) return b ? [] : [mth(d)];
  const s = k(d.length);
  return m <= s ? [...subproof(m, d.slice(0, s), b), mth(d.slice(s))] : [...subproof(m - s, d.slice(s), false), mth(d.slice(0, s))];
}
export const proof = (m: number, d: Buffer[]) => subproof(m, d, true);

const odd = (x: bigint) => (x & 1n) === 1n;

/** §2.1.3.2, with bigints so that it shares nothing with the service's arithmetic. */
export function verifyInclusion(index: number, size: number, leafHash: Buffer, proofPath: Buffer[], root: Buffer): boolean {
  if (index >= size) return false;
  let fn = BigInt(index);
  let sn = BigInt(size - 1);
  let r = leafHash;
  for (const p of proofPath) {
    if (sn === 0n) return false;
    if (odd(fn) || fn === sn) {
      r = node(p, r);
      if (!odd(fn)) do { fn >>= 1n; sn >>= 1n; } while (!odd(fn) && fn !== 0n);
    } else r = node(r, p);
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n && r.equals(root);
}

/** §2.1.4.2. */
export function verifyConsistency(first: number, second: number, firstHash: Buffer, secondHash: Buffer, proofPath: Buffer[]): boolean {
  if (first === second) return proofPath.length === 0 && firstHash.equals(secondHash);
  let p = [...proofPath];
  if ((first & (first - 1)) === 0) p = [firstHash, ...p];
  if (p.length === 0) return false;
  let fn = BigInt(first - 1);
  let sn = BigInt(second - 1);
  while (odd(fn)) { fn >>= 1n; sn >>= 1n; }
  let fr = p[0]!;
  let sr = p[0]!;
  for (const c of p.slice(1)) {
    if (sn === 0n) return false;
    if (odd(fn) || fn === sn) {
      fr = node(c, fr);
      sr = node(c, sr);
      if (!odd(fn)) do { fn >>= 1n; sn >>= 1n; } while (!odd(fn) && fn !== 0n);
    } else sr = node(sr, c);
    fn >>= 1n;
    sn >>= 1n;
  }
  return fr.equals(firstHash) && sr.equals(secondHash) && sn === 0n;
}

/**
 * Every stored node of the tree over `leaves` (perfect subtrees: position = level·2^40 + index)
 * and its head's right edge: what an attacker with write access to the database would rewrite.
 */
export function treeRows(leaves: Buffer[]): { nodes: Array<{ position: number; hash: Buffer; level: number; index: number }>; frontier: Buffer } {
  const nodes: Array<{ position: number; hash: Buffer; level: number; index: number }> = [];
  let level: Buffer[] = leaves.map((d) => leaf(d));
  for (let l = 0; level.length > 0; l++) {
    level.forEach((hash, index) => nodes.push({ position: l * 2 ** 40 + index, hash, level: l, index }));
    const next: Buffer[] = [];
    for (let i = 0; i + 1 < level.length; i += 2) next.push(node(level[i]!, level[i + 1]!));
    level = next;
  }
  const edge: Buffer[] = [];
  let offset = 0;
  for (let l = 40; l >= 0; l--) {
    if (leaves.length & 2 ** l) {
      edge.push(nodes.find((n) => n.level === l && n.index === offset / 2 ** l)!.hash);
      offset += 2 ** l;
    }
  }
  return { nodes, frontier: Buffer.concat(edge) };
}
