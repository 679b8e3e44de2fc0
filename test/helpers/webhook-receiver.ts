import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';

/** A delivery as a receiver got it: the raw body and the headers a verifier needs. */
export interface ReceivedDelivery {
  headers: { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string };
  body: string;
  /** The parsed body. */
  event: { type: string; timestamp: string; data: Record<string, any> };
  /** The status the receiver answered. */
  answered: number;
}

/** What the receiver answers a delivery: a status, and headers (Retry-After); 'hold': no answer until `releaseHeld()` (recorded as answered 0). */
export type Answer = (delivery: Omit<ReceivedDelivery, 'answered'>) => { status: number; headers?: Record<string, string> } | 'hold';

/**
 * A webhook receiver on node:http on a free port of 127.0.0.1, keeping every delivery in order of
 * arrival (`all`) and those it answered 2xx (`accepted`). `answer` decides the reply (200 unless
 * set); `stop()` and `start()` take it off the network and back on the same port.
 */
export class WebhookReceiver {
  readonly all: ReceivedDelivery[] = [];
  answer: Answer = () => ({ status: 200 });
  private server: Server | null = null;
  private readonly held: ServerResponse[] = [];
  private listeners = new Set<() => void>();
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  get accepted(): ReceivedDelivery[] {
    return this.all.filter((d) => d.answered >= 200 && d.answered < 300);
  }

  /** Resolves once `check` holds of what was received (checked on each arrival). */
  until<T>(check: (receiver: WebhookReceiver) => T | undefined | false, what: string, timeoutMs = 30_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const look = () => {
        const result = check(this);
        if (result !== undefined && result !== false) {
          this.listeners.delete(look);
          clearTimeout(timer);
          resolve(result);
        }
      };
      const timer = setTimeout(() => {
        this.listeners.delete(look);
        reject(new Error(`webhook receiver: ${what} did not happen (${this.all.length} received)`));
      }, timeoutMs);
      this.listeners.add(look);
      look();
    });
  }

  async start(): Promise<this> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = pick(request.headers);
        const received = { headers, body, event: JSON.parse(body) as ReceivedDelivery['event'] };
        const answer = this.answer(received);
        if (answer === 'hold') {
          this.all.push({ ...received, answered: 0 });
          this.held.push(response);
        } else {
          this.all.push({ ...received, answered: answer.status });
          response.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
          response.end(answer.status < 300 ? 'ok' : 'not now');
        }
        for (const listener of [...this.listeners]) listener();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    this.server = server;
    return this;
  }

  /** Answers 200 to the requests held (whose sender may be gone by now). */
  releaseHeld(): void {
    for (const response of this.held.splice(0)) if (!response.destroyed) response.writeHead(200).end('late');
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    this.releaseHeld();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function pick(headers: IncomingHttpHeaders): ReceivedDelivery['headers'] {
  return { 'webhook-id': String(headers['webhook-id']), 'webhook-timestamp': String(headers['webhook-timestamp']), 'webhook-signature': String(headers['webhook-signature']) };
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  return new WebhookReceiver().start();
}
