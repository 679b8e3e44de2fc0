import type { AuditClient } from './log-format.js';

/**
 * The client an actor used, as an audit entry keeps it (issue 28): the address of their request
 * (Fastify's `request.ip`, which believes X-Forwarded-For only from TRUST_PROXY) and the official
 * SDK's user agent named by its User-Agent, `KMP SDK <PlatformType> - v<version>` (the SDK's
 * installUserAgent), as the SDK's AuditUserAgentType reads it: `KMP_SDK_<PlatformType>`. Any other
 * User-Agent (a browser, curl, the legacy SDK) is no type the SDK's enum holds, and an unknown
 * one would fail its decoding of the whole audit page: it is kept as null.
 */

/** The SDK's PlatformType values (Platform.kt). */
const SDK_PLATFORMS = new Set(['JVM', 'ANDROID', 'APPLE', 'APPLE_MAC', 'APPLE_IOS', 'APPLE_WATCH', 'WINDOWS', 'JS', 'JS_BROWSER', 'JS_NODE']);
const SDK_USER_AGENT = /^KMP SDK ([A-Z_]{1,32}) - v([0-9A-Za-z.+-]{1,64})$/;

export function sdkUserAgent(header: string | undefined): AuditClient['userAgent'] {
  const match = header === undefined ? null : SDK_USER_AGENT.exec(header.trim());
  if (!match || !SDK_PLATFORMS.has(match[1]!)) return null;
  return { type: `KMP_SDK_${match[1]!}`, version: match[2]! };
}

/** What the entries an HTTP request records keep of its client. */
export function auditClientOf(request: { ip: string; headers: { 'user-agent'?: string | undefined } }): AuditClient {
  return { actorIp: request.ip, userAgent: sdkUserAgent(request.headers['user-agent']) };
}
