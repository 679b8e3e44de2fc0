import { createHmac, timingSafeEqual } from 'node:crypto';

/** Permission to PUT one object with one content type until `expires` (Unix seconds). */
export interface UploadGrant {
  applicationId: string;
  key: string;
  contentType: string;
  expires: number;
}

export const UPLOAD_TTL_SECONDS = 15 * 60;

function message(grant: UploadGrant): string {
  // Newline-separated: none of the fields can contain one (they are checked before signing).
  return ['latchkey-logo-upload-v1', grant.applicationId, grant.key, grant.contentType, String(grant.expires)].join('\n');
}

/** HMAC-SHA256 over the application, object key, content type and expiry, Base64URL. */
export function signUpload(secret: Buffer, grant: UploadGrant): string {
  return createHmac('sha256', secret).update(message(grant)).digest('base64url');
}

/** A grant that lasts the upload lifetime from `now` (Unix seconds); `now` is a parameter so tests can age it. */
export function grantUpload(applicationId: string, key: string, contentType: string, now: number): UploadGrant {
  return { applicationId, key, contentType, expires: Math.floor(now) + UPLOAD_TTL_SECONDS };
}

export type UploadCheck = 'ok' | 'expired' | 'invalid';

/** Checks the signature in constant time, then the expiry. */
export function checkUpload(secret: Buffer, grant: UploadGrant, signature: string, now: number): UploadCheck {
  const expected = Buffer.from(signUpload(secret, grant));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid';
  return now > grant.expires ? 'expired' : 'ok';
}
