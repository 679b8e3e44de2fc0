import { leafHash, nodeHash, type Hash } from './merkle.js';

/**
 * Checking proofs as a client does (RFC 9162 §2.1.3.2 and §2.1.4.2), for the witness command
 * (`latchkey audit checkpoint --url`) and for anyone reading docs/audit-log.md.
 */

/** Whether `proof` shows leaf `leafIndex` with data `leafData` in the tree of `treeSize` with `root`. */
export function verifyInclusion(leafData: Uint8Array, leafIndex: number, treeSize: number, proof: readonly Hash[], root: Hash): boolean {
  if (leafIndex >= treeSize) return false;
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r = leafHash(leafData);
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else r = nodeHash(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

/** Whether `proof` shows the tree of `firstSize` with `firstRoot` to be a prefix of the one of `secondSize` with `secondRoot`. */
export function verifyConsistency(firstSize: number, secondSize: number, firstRoot: Hash, secondRoot: Hash, proof: readonly Hash[]): boolean {
  if (firstSize > secondSize || firstSize < 1) return false;
  if (firstSize === secondSize) return proof.length === 0 && firstRoot.equals(secondRoot);
  let path = [...proof];
  if (Number.isInteger(Math.log2(firstSize))) path = [firstRoot, ...path];
  if (path.length === 0) return false;
  let fn = firstSize - 1;
  let sn = secondSize - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else sr = nodeHash(sr, c);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return fr.equals(firstRoot) && sr.equals(secondRoot) && sn === 0;
}
