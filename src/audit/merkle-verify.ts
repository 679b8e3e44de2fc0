import { rootFromInclusionProof, rootsFromConsistencyProof } from './log-format.js';
import { leafHash, nodeHash, type Hash } from './merkle.js';

/**
 * Checking proofs as a client does (RFC 9162 §2.1.3.2 and §2.1.4.2), for the witness command
 * (`latchkey audit checkpoint --url`) and for anyone reading docs/audit-log.md. The folding is
 * log-format.ts's, which the console runs in the browser over WebCrypto.
 */

/** Whether `proof` shows leaf `leafIndex` with data `leafData` in the tree of `treeSize` with `root`. */
export function verifyInclusion(leafData: Uint8Array, leafIndex: number, treeSize: number, proof: readonly Hash[], root: Hash): boolean {
  const computed = rootFromInclusionProof(leafHash(leafData), leafIndex, treeSize, proof, nodeHash);
  return computed !== null && computed.equals(root);
}

/** Whether `proof` shows the tree of `firstSize` with `firstRoot` to be a prefix of the one of `secondSize` with `secondRoot`. */
export function verifyConsistency(firstSize: number, secondSize: number, firstRoot: Hash, secondRoot: Hash, proof: readonly Hash[]): boolean {
  const roots = rootsFromConsistencyProof(firstSize, secondSize, firstRoot, proof, nodeHash);
  return roots !== null && roots.first.equals(firstRoot) && roots.second.equals(secondRoot);
}
