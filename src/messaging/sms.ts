import type { Logger } from 'pino';
import { writeToOutbox } from './outbox.js';

export type TextChannel = 'TELEPHONE' | 'SMS' | 'WHATSAPP';

export interface TextMessage {
  channel: TextChannel;
  to: string;
  text: string;
}

export interface TextSender {
  send(message: TextMessage): Promise<void>;
}

/** Posts `{channel, to, text}` to the operator's webhook; without one, writes to the outbox. */
export function createTextSender(options: { webhookUrl: string | null; dataDir: string; logger: Logger }): TextSender {
  const { webhookUrl, dataDir, logger } = options;
  return {
    async send(message) {
      if (!webhookUrl) {
        const file = await writeToOutbox(dataDir, 'sms', message);
        logger.info({ channel: message.channel, to: message.to, file }, 'text message written to outbox (no SMS_WEBHOOK_URL)');
        return;
      }
      const response = await fetch(webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(message),
        signal: AbortSignal.timeout(10_000),
      });
      if (!response.ok) throw new Error(`SMS webhook answered ${response.status}`);
      logger.info({ channel: message.channel, to: message.to }, 'text message sent');
    },
  };
}
