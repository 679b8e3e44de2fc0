import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import { writeToOutbox } from './outbox.js';

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  from?: { address: string; name: string };
}

export interface Mailer {
  send(message: EmailMessage): Promise<void>;
  close(): void;
}

export const DEFAULT_SENDER = { address: 'no-reply@latchkey.local', name: 'Latchkey' };

/** SMTP when configured; otherwise each message is logged (without its body) and written to the outbox. */
export function createMailer(options: { smtpUrl: string | null; dataDir: string; logger: Logger }): Mailer {
  const { smtpUrl, dataDir, logger } = options;
  if (smtpUrl) {
    const transport = nodemailer.createTransport(smtpUrl);
    return {
      async send(message) {
        const from = message.from ?? DEFAULT_SENDER;
        await transport.sendMail({ from: { name: from.name, address: from.address }, to: message.to, subject: message.subject, text: message.text, html: message.html });
        logger.info({ to: message.to, subject: message.subject }, 'email sent');
      },
      close: () => transport.close(),
    };
  }
  return {
    async send(message) {
      const file = await writeToOutbox(dataDir, 'email', { ...message, from: message.from ?? DEFAULT_SENDER });
      logger.info({ to: message.to, subject: message.subject, file }, 'email written to outbox (no SMTP_URL)');
    },
    close: () => undefined,
  };
}
