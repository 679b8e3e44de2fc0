import type { S3Config } from '../config/config.js';
import { newLogoKey, type LogoContentType } from './content-types.js';
import { presignUrl } from './sigv4.js';
import type { LogoStorage, LogoUpload } from './logo-storage.js';
import { UPLOAD_TTL_SECONDS } from './upload-signature.js';

/**
 * S3-compatible storage: a presigned PUT (SigV4, query-string form) to `{endpoint}/{bucket}/{key}`
 * (path style, which MinIO, Ceph, R2 and AWS accept), with the content type signed so the store
 * refuses another. Objects are read from S3_PUBLIC_URL. A presigned PUT cannot cap the size; use a
 * bucket policy or lifecycle rule for that (documented in docs/logo-storage.md).
 */
export class S3LogoStorage implements LogoStorage {
  constructor(private readonly s3: S3Config) {}

  async createUpload(applicationId: string, contentType: LogoContentType, now: number): Promise<LogoUpload> {
    const key = newLogoKey(applicationId, contentType);
    const uploadUrl = await presignUrl({
      method: 'PUT',
      url: `${this.s3.endpoint}/${this.s3.bucket}/${key}`,
      region: this.s3.region,
      accessKeyId: this.s3.accessKeyId,
      secretAccessKey: this.s3.secretAccessKey,
      ...(this.s3.sessionToken ? { sessionToken: this.s3.sessionToken } : {}),
      expiresSeconds: UPLOAD_TTL_SECONDS,
      now,
      headers: { 'content-type': contentType },
    });
    return { uploadUrl, logoUrl: `${this.s3.publicUrl}/${key}` };
  }

  async removeApplication(): Promise<void> {
    // Objects in the bucket are left to the bucket's lifecycle rules; the service holds no delete grant.
  }
}
