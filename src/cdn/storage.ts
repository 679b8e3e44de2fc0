import { join } from 'node:path';
import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import { isLogoContentType, newLogoKey, type LogoContentType } from './content-types.js';
import { DatabaseObjectStore } from './database-store.js';
import { LocalObjectStore, type ObjectStore } from './local-store.js';
import type { LogoStorage, LogoUpload } from './logo-storage.js';
import { S3LogoStorage } from './s3-storage.js';
import { loadUploadSecret } from './signing-secret.js';
import { grantUpload, signUpload } from './upload-signature.js';

export type { LogoStorage, LogoUpload } from './logo-storage.js';

export function requireLogoContentType(value: string): LogoContentType {
  const type = value.trim().toLowerCase();
  if (!isLogoContentType(type)) throw errors.validation('contentType must be image/png, image/jpeg, image/gif, image/webp or image/svg+xml');
  return type;
}

/**
 * The embedded store: signed, expiring upload URLs answered by Latchkey itself (PUT /cdn/{key}),
 * files in DATA_DIR/cdn served under CDN_URL (GET /cdn/{key}).
 */
export class EmbeddedLogoStorage implements LogoStorage {
  readonly files: ObjectStore;
  private secret: Promise<Buffer> | null = null;

  constructor(private readonly ctx: AppContext) {
    // PostgreSQL may be shared by several instances, which share no disk (issue 17 §5).
    this.files = ctx.config.database.kind === 'postgres' ? new DatabaseObjectStore(ctx.db, ctx.now) : new LocalObjectStore(join(ctx.config.dataDir, 'cdn'));
  }

  uploadSecret(): Promise<Buffer> {
    this.secret ??= loadUploadSecret(this.ctx).catch((err: unknown) => {
      this.secret = null;
      throw err;
    });
    return this.secret;
  }

  async createUpload(applicationId: string, contentType: LogoContentType, now: number): Promise<LogoUpload> {
    const key = newLogoKey(applicationId, contentType);
    const grant = grantUpload(applicationId, key, contentType, now);
    const signature = signUpload(await this.uploadSecret(), grant);
    const query = new URLSearchParams({ contentType, expires: String(grant.expires), signature });
    return { uploadUrl: `${this.ctx.config.baseUrl}/cdn/${key}?${query}`, logoUrl: `${this.ctx.config.cdnUrl}/${key}` };
  }

  async removeApplication(applicationId: string): Promise<void> {
    await this.files.removeDirectory(`applications/${applicationId.toLowerCase()}`);
  }
}

export function createLogoStorage(ctx: AppContext): { storage: LogoStorage; embedded: EmbeddedLogoStorage } {
  const embedded = new EmbeddedLogoStorage(ctx);
  return { storage: ctx.config.s3 ? new S3LogoStorage(ctx.config.s3) : embedded, embedded };
}
