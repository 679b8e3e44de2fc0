import { createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/schema.js';
import { newId } from './random.js';
import type { SecretBox } from './secret-box.js';

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
}

/**
 * The service's token-signing keys (Ed25519). One is active for signing; every key that is not
 * long retired stays published and accepted, so rotation never invalidates issued tokens.
 * Keys created by other instances are looked up by kid on first sight.
 */
export class ServiceKeys {
  private active: SigningKey | null = null;
  private readonly publicKeys = new Map<string, KeyObject>();

  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly box: SecretBox,
    private readonly now: () => number,
  ) {}

  async load(): Promise<void> {
    const rows = await this.db.selectFrom('service_keys').selectAll().where('retired_at', 'is', null).orderBy('created', 'desc').execute();
    const newest = rows[0];
    if (!newest) {
      this.active = await this.rotate();
      return;
    }
    for (const row of rows) this.publicKeys.set(row.kid, createPublicKey({ key: JSON.parse(row.public_jwk) as JsonWebKey, format: 'jwk' }));
    this.active = { kid: newest.kid, privateKey: createPrivateKey({ key: this.box.open(newest.private_sealed, `service-key:${newest.kid}`), format: 'der', type: 'pkcs8' }) };
  }

  /** Creates a new signing key and makes it the active one; older keys stay valid for verification. */
  async rotate(): Promise<SigningKey> {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const kid = newId();
    await this.db
      .insertInto('service_keys')
      .values({
        kid,
        algorithm: 'EdDSA',
        public_jwk: JSON.stringify(publicKey.export({ format: 'jwk' })),
        private_sealed: this.box.seal(privateKey.export({ format: 'der', type: 'pkcs8' }), `service-key:${kid}`),
        created: this.now(),
        retired_at: null,
      })
      .execute();
    this.publicKeys.set(kid, publicKey);
    this.active = { kid, privateKey };
    return this.active;
  }

  signingKey(): SigningKey {
    if (!this.active) throw new Error('service keys not loaded');
    return this.active;
  }

  async publicKey(kid: string): Promise<KeyObject | null> {
    const known = this.publicKeys.get(kid);
    if (known) return known;
    const row = await this.db.selectFrom('service_keys').select(['public_jwk']).where('kid', '=', kid).where('retired_at', 'is', null).executeTakeFirst();
    if (!row) return null;
    const key = createPublicKey({ key: JSON.parse(row.public_jwk) as JsonWebKey, format: 'jwk' });
    this.publicKeys.set(kid, key);
    return key;
  }

  /** The JSON Web Key Set published at /.well-known/jwks.json. */
  async jwks(): Promise<{ keys: Array<Record<string, unknown>> }> {
    const rows = await this.db.selectFrom('service_keys').select(['kid', 'public_jwk', 'algorithm']).where('retired_at', 'is', null).orderBy('created', 'desc').execute();
    return { keys: rows.map((row) => ({ ...(JSON.parse(row.public_jwk) as object), kid: row.kid, alg: row.algorithm, use: 'sig' })) };
  }
}
