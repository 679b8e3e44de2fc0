import type { Generated } from 'kysely';

/** Booleans are stored as 0/1 in both engines (better-sqlite3 cannot bind booleans). */
export type Flag = 0 | 1;

export interface UsersTable {
  id: string;
  /** 'direct' for users registered with the service, else the id of their application. */
  namespace: string;
  /** The third party's own user id (token `sub`) for application users. */
  external_id: string | null;
  email: string | null;
  email_normalised: string | null;
  email_verified: Flag;
  telephone: string | null;
  telephone_verified: Flag;
  display_name: string | null;
  password_hash: string | null;
  /** Legacy RSA public key, Base64 DER SubjectPublicKeyInfo. */
  public_key: string | null;
  /** Legacy RSA private key, PKCS#8 sealed with the key-encryption key. */
  private_key_sealed: string | null;
  /** A pending invite: created by sharing to an email with no account. */
  orphan: Flag;
  created: number;
  updated: number;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  created: number;
  expires_at: number;
  revoked_at: number | null;
  /** Id of the one refresh token of this session that may still be used. */
  refresh_id: string;
}

export interface EmailVerificationsTable {
  code_hash: string;
  user_id: string;
  email: string;
  created: number;
  expires_at: number;
  used_at: number | null;
}

export interface ServiceKeysTable {
  kid: string;
  algorithm: string;
  public_jwk: string;
  private_sealed: string;
  created: number;
  retired_at: number | null;
}

export interface SealedSecretsTable {
  name: string;
  value_sealed: string;
  created: number;
}

/** POST /account/password/reset/initialize: one row per token sent, deleted when used. */
export interface PasswordResetTokensTable {
  /** SHA-256 hex of the emailed token. */
  token_hash: string;
  user_id: string;
  created: number;
  expires_at: number;
}

/** The ephemeral key given at registration: the first certificate request with it needs no check. */
export interface RegistrationKeysTable {
  user_id: string;
  /** Raw 32-byte Ed25519 key, standard Base64 (as verified_keys stores keys). */
  key: string;
  created: number;
}

export interface AccountTables {
  users: UsersTable;
  sessions: SessionsTable;
  email_verifications: EmailVerificationsTable;
  service_keys: ServiceKeysTable;
  sealed_secrets: SealedSecretsTable;
  password_reset_tokens: PasswordResetTokensTable;
  registration_keys: RegistrationKeysTable;
}

export type { Generated };
