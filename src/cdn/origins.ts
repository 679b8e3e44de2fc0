import type { Config } from '../config/config.js';

/**
 * The web origins a browser talks to for logos: where it PUTs an upload (`uploadUrl`: BASE_URL's
 * `/cdn` for the embedded store, S3_ENDPOINT for S3) and where it loads a logo from (`logoUrl`:
 * CDN_URL, and S3_PUBLIC_URL with S3). The console's CSP allows exactly these besides itself.
 */
export function logoOrigins(config: Pick<Config, 'baseUrl' | 'cdnUrl' | 's3'>): { upload: string[]; images: string[] } {
  const origin = (url: string) => new URL(url).origin;
  const upload = config.s3 ? [origin(config.s3.endpoint)] : [origin(config.baseUrl)];
  const images = [origin(config.cdnUrl), ...(config.s3 ? [origin(config.s3.publicUrl)] : [])];
  return { upload: [...new Set(upload)], images: [...new Set(images)] };
}
