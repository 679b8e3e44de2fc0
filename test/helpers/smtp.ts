import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedEmail {
  to: string[];
  from: string;
  fromName: string;
  subject: string;
  text: string;
  html: string;
}

export interface SmtpSink {
  url: string;
  messages: ReceivedEmail[];
  /** Resolves with the first message (already received or yet to come) that matches. */
  waitFor(match: (m: ReceivedEmail) => boolean, timeoutMs?: number): Promise<ReceivedEmail>;
  close(): Promise<void>;
}

/** A real SMTP server on a free port that keeps every message it receives. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ReceivedEmail[] = [];
  const waiters: Array<{ match: (m: ReceivedEmail) => boolean; resolve: (m: ReceivedEmail) => void }> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          const to = (Array.isArray(parsed.to) ? parsed.to : parsed.to ? [parsed.to] : []).flatMap((a) => a.value.map((v) => v.address ?? ''));
          const sender = parsed.from?.value[0];
          const message = { to, from: sender?.address ?? '', fromName: sender?.name ?? '', subject: parsed.subject ?? '', text: parsed.text ?? '', html: typeof parsed.html === 'string' ? parsed.html : '' };
          messages.push(message);
          for (const waiter of [...waiters]) {
            if (waiter.match(message)) {
              waiters.splice(waiters.indexOf(waiter), 1);
              waiter.resolve(message);
            }
          }
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitFor(match, timeoutMs = 5000) {
      const found = messages.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no matching email arrived')), timeoutMs);
        waiters.push({ match, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The first code (6 digits) in an email or a text message. */
export function codeIn(text: string): string {
  const match = /\b(\d{6})\b/.exec(text);
  if (!match) throw new Error(`no code in: ${text}`);
  return match[1]!;
}
