/**
 * Ephemeral keys (decisions §3): which keys a user has proved to own through a secondary check,
 * and the checks in progress.
 */

export interface VerifiedKeysTable {
  user_id: string;
  /** The raw 32-byte Ed25519 key, standard Base64. */
  key: string;
  verified_at: number;
}

export interface CertificateVerificationsTable {
  id: string;
  user_id: string;
  /** The key waiting to be verified, raw Base64. */
  ephemeral_key: string;
  /**
   * The 6-digit code, sealed with the key-encryption key and bound to this row's id. Not a hash:
   * the check verifies a signature over the code, so the service must be able to recompute it.
   */
  code_sealed: string;
  method: string;
  created: number;
  expires_at: number;
  /** Checks made against this code; it is dead at MAX_CHECK_ATTEMPTS. */
  attempts: number;
}

export interface CertificateTables {
  verified_keys: VerifiedKeysTable;
  certificate_verifications: CertificateVerificationsTable;
}
