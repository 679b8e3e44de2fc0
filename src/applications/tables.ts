/** Third-party applications (decisions §6): the record, its owners and its credentials. */
export interface ApplicationsTable {
  id: string;
  name: string;
  company_name: string;
  mailing_address: string;
  privacy_policy: string | null;
  support_contact: string | null;
  app_link: string | null;
  logo_url: string | null;
  /** JSON of the email preferences object, or null for the service's own look. */
  email_preferences: string | null;
  /** The service-generated RSA public key (JWK JSON) for `identity` JWEs. */
  encryption_public_jwk: string;
  /** Its private key, PKCS#8 sealed with the key-encryption key (context `application-key:<id>`). */
  encryption_private_sealed: string;
  /** The sender address proved by a code (migration 0050): branding applies while it is `senderEmail`. */
  sender_verified_email: string | null;
  sender_code_hash: string | null;
  sender_code_email: string | null;
  sender_code_expires_at: number | null;
  created: number;
  updated: number;
}

export interface ApplicationOwnersTable {
  application_id: string;
  user_id: string;
  created: number;
}

/** Public JWKs a third party signs its users' tokens with; kid unique per application. */
export interface ApplicationAuthKeysTable {
  application_id: string;
  kid: string;
  public_jwk: string;
  created: number;
}

/** Token issuers (`iss`), unique across all applications. */
export interface ApplicationIssuersTable {
  url: string;
  application_id: string;
  created: number;
}

/** Browser origins allowed to call the API (CORS); `url` as registered, `origin` as matched. */
export interface ApplicationCorsOriginsTable {
  application_id: string;
  origin: string;
  url: string;
  created: number;
}

/** An application user deleted at `deleted_at`: the subject's tokens issued until then are refused. */
export interface DeletedApplicationUsersTable {
  application_id: string;
  external_id: string;
  deleted_at: number;
}

export interface ApplicationTables {
  applications: ApplicationsTable;
  application_owners: ApplicationOwnersTable;
  application_auth_keys: ApplicationAuthKeysTable;
  application_issuers: ApplicationIssuersTable;
  application_cors_origins: ApplicationCorsOriginsTable;
  deleted_application_users: DeletedApplicationUsersTable;
}
