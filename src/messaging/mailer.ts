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
  /**
   * Composes and sends in the background, for an answer that must not wait for the email (nor take
   * longer when there is one to send); a failure is logged as "`what` could not be sent".
   */
  sendLater(what: string, compose: () => Promise<EmailMessage>): void;
  /** Resolves once no email is being composed or sent (those started meanwhile included). */
  idle(): Promise<void>;
  close(): void;
}

export const DEFAULT_SENDER = { address: 'no-reply@latchkey.local', name: 'Latchkey' };

/** SMTP when configured; otherwise each message is logged (without its body) and written to the outbox. */
export function createMailer(options: { smtpUrl: string | null; dataDir: string; logger: Logger }): Mailer {
  const { smtpUrl, dataDir, logger } = options;
  const deliver = smtpUrl ? smtpDelivery(smtpUrl, logger) : { send: outboxDelivery(dataDir, logger), close: () => undefined };
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    inFlight.add(work);
    const forget = () => void inFlight.delete(work);
    work.then(forget, forget);
    return work;
  };
  return {
    send: (message) => track(deliver.send(message)),
    sendLater(what, compose) {
      track(compose().then(deliver.send)).catch((err: unknown) => logger.error({ err }, `${what} could not be sent`));
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    close: () => deliver.close(),
  };
}

function smtpDelivery(smtpUrl: string, logger: Logger) {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send(message: EmailMessage): Promise<void> {
      const from = message.from ?? DEFAULT_SENDER;
      await transport.sendMail({ from: { name: from.name, address: from.address }, to: message.to, subject: message.subject, text: message.text, html: message.html });
      logger.info({ to: message.to, subject: message.subject }, 'email sent');
    },
    close: () => transport.close(),
  };
}

function outboxDelivery(dataDir: string, logger: Logger) {
  return async (message: EmailMessage): Promise<void> => {
    const file = await writeToOutbox(dataDir, 'email', { ...message, from: message.from ?? DEFAULT_SENDER });
    logger.info({ to: message.to, subject: message.subject, file }, 'email written to outbox (no SMTP_URL)');
  };
}
