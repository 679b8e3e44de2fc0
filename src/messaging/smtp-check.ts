import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

/** Long enough for a slow relay's greeting, short enough to be told while the operator watches. */
const CHECK_TIMEOUT_MS = 10_000;

/** Where SMTP_URL points, without its credentials: safe to log. */
function smtpAddress(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  return `${url.protocol}//${url.hostname}:${url.port || (url.protocol === 'smtps:' ? '465' : '587')}`;
}

/**
 * Connects to SMTP_URL once at start-up (greeting, TLS, login) and logs the outcome. A door
 * service must not stay down because mail is: an unreachable server is a loud warning, the
 * service keeps running, and each email tries the server again. Never throws.
 */
export async function reportSmtpReachability(smtpUrl: string | null, logger: Logger): Promise<boolean | null> {
  if (!smtpUrl) return null;
  const transport = nodemailer.createTransport({ url: smtpUrl, connectionTimeout: CHECK_TIMEOUT_MS, greetingTimeout: CHECK_TIMEOUT_MS, socketTimeout: CHECK_TIMEOUT_MS });
  const smtp = smtpAddress(smtpUrl);
  try {
    await transport.verify();
    logger.info({ smtp }, 'SMTP_URL reachable');
    return true;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    logger.warn({ setting: 'SMTP_URL', smtp, reason }, `SMTP_URL unreachable (${smtp}): emails (verification codes, invitations) fail until it answers; each one tries again`);
    return false;
  } finally {
    transport.close();
  }
}
