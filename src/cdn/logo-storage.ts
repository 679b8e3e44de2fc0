import type { LogoContentType } from './content-types.js';

export interface LogoUpload {
  /** Where the client PUTs the bytes, with the announced Content-Type, before it expires. */
  uploadUrl: string;
  /** Where the logo is served once uploaded. */
  logoUrl: string;
}

/** Where logos go: embedded (files served by Latchkey) or S3-compatible object storage. */
export interface LogoStorage {
  createUpload(applicationId: string, contentType: LogoContentType, now: number): Promise<LogoUpload>;
  /** Removes an application's logos when it is deleted (best effort). */
  removeApplication(applicationId: string): Promise<void>;
}
