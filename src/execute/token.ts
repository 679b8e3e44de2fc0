import { decodeOperationToken as decodeSignedOperation, type DecodedOperationToken } from '../crypto/operation-token.js';
import { MAX_EXECUTE_BODY_BYTES } from './body.js';

/**
 * Signed operations as the execute endpoint and the lock simulator read them. Decoding and
 * signature checks live in crypto/operation-token.ts; this adds the execute body's size limit.
 */

export {
  OPERATION_ALGORITHMS, cachedLegacyKeyReader, parseLegacyPublicKey, sameId, verifyOperationSignature,
  type DecodedOperationToken, type LegacyKeyReader, type OperationAlgorithm, type OperationTokenHeader, type VerifiedSigner,
} from '../crypto/operation-token.js';

/** Decodes a compact JWS no longer than an execute body may be (see crypto/operation-token.ts). */
export function decodeOperationToken(compact: string): DecodedOperationToken {
  return decodeSignedOperation(compact, MAX_EXECUTE_BODY_BYTES);
}
