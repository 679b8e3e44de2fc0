import { createServer, type Server } from 'node:http';
import { eventually } from '../helpers/wait.js';

export interface TextMessage {
  channel: string;
  to: string;
  text: string;
}

export interface SmsWebhook {
  url: string;
  messages: TextMessage[];
  waitFor(match: (m: TextMessage) => boolean, timeoutMs?: number): Promise<TextMessage>;
  close(): Promise<void>;
}

/** A local HTTP server standing in for the operator's SMS gateway (SMS_WEBHOOK_URL). */
export async function startSmsWebhook(): Promise<SmsWebhook> {
  const messages: TextMessage[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      messages.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as TextMessage);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/sms`,
    messages,
    waitFor: (match, timeoutMs = 5000) => eventually(() => messages.find(match), 'a matching text message', timeoutMs),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

