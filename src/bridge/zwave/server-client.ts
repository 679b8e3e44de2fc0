import WebSocket from 'ws';
import type { Logger } from 'pino';

/**
 * A client of Z-Wave JS Server's WebSocket API (the `@zwave-js/server` that Z-Wave JS UI and
 * Home Assistant's Z-Wave JS add-on run). It speaks schema ZWAVE_SCHEMA_VERSION: it says so with
 * `set_api_schema` after the server's `version` message, and refuses a server whose range does not
 * hold it. After each (re)connection it sends `start_listening` and hands the full state to
 * `onState`; then each event to `onEvent`. It reconnects by itself (1 s doubling to 30 s), and a
 * server that stops answering pings is dropped and reconnected to.
 */

export const ZWAVE_SCHEMA_VERSION = 44;

/** What start_listening returns (only what the bridge reads). */
export interface ZwaveNodeState {
  nodeId: number;
  /** 0 unknown, 1 asleep, 2 awake, 3 dead, 4 alive. */
  status: number;
  ready: boolean;
  values: ZwaveValue[];
}

export interface ZwaveValue {
  commandClass: number;
  endpoint?: number;
  property: string | number;
  propertyKey?: string | number;
  value?: unknown;
}

export interface ZwaveEvent {
  source: string;
  event: string;
  nodeId?: number;
  args?: Record<string, unknown>;
}

export interface ZwaveServerHandlers {
  /** After every (re)connection, the nodes as the server knows them. */
  onState(nodes: ZwaveNodeState[]): void;
  onEvent(event: ZwaveEvent): void;
  /** The connection is lost (each pending request has failed). */
  onDisconnected(): void;
}

type Pending = { resolve: (result: unknown) => void; reject: (err: Error) => void; timer: NodeJS.Timeout };

const PING_EVERY_MS = 10_000;
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

export class ZwaveServerError extends Error {
  override name = 'ZwaveServerError';
}

export class ZwaveServerClient {
  private socket: WebSocket | null = null;
  private listening = false;
  private nextId = 0;
  private readonly pending = new Map<string, Pending>();
  private retryMs = FIRST_RETRY_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly url: string, private readonly handlers: ZwaveServerHandlers, private readonly logger: Logger) {}

  /** Whether the server has answered start_listening on the current connection. */
  get connected(): boolean {
    return this.listening;
  }

  start(): void {
    this.open();
  }

  /** Sends `command` and resolves with its result; rejects when the server refuses it, the connection drops or `timeoutMs` passes. */
  request(command: string, args: Record<string, unknown>, timeoutMs: number): Promise<Record<string, unknown>> {
    const socket = this.socket;
    if (socket === null || !this.listening) return Promise.reject(new ZwaveServerError('Z-Wave JS Server is not connected'));
    return this.send(socket, command, args, timeoutMs) as Promise<Record<string, unknown>>;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    const socket = this.socket;
    if (socket === null) return;
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.close();
      setTimeout(() => socket.terminate(), 1_000).unref();
    });
  }

  private open(): void {
    if (this.closed) return;
    const socket = new WebSocket(this.url, { handshakeTimeout: 10_000 });
    this.socket = socket;
    let alive = true;
    socket.on('pong', () => { alive = true; });
    socket.on('open', () => {
      this.pingTimer = setInterval(() => {
        // No pong since the last ping: the server (or the path to it) is gone without closing.
        if (!alive) return socket.terminate();
        alive = false;
        socket.ping();
      }, PING_EVERY_MS);
    });
    socket.on('message', (data: WebSocket.RawData) => this.receive(socket, data));
    socket.on('error', (err) => this.logger.warn({ err: err.message, url: this.url }, 'Z-Wave JS Server connection error'));
    socket.on('close', () => this.lost(socket));
  }

  private lost(socket: WebSocket): void {
    if (this.socket !== socket) return;
    clearInterval(this.pingTimer);
    this.socket = null;
    const wasListening = this.listening;
    this.listening = false;
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(new ZwaveServerError('Z-Wave JS Server connection lost'));
      this.pending.delete(id);
    }
    if (wasListening) this.logger.warn({ url: this.url }, 'Z-Wave JS Server connection lost; reconnecting');
    this.handlers.onDisconnected();
    if (this.closed) return;
    this.retryTimer = setTimeout(() => this.open(), this.retryMs * (0.5 + Math.random()));
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }

  private receive(socket: WebSocket, data: WebSocket.RawData): void {
    let message: { type?: string; messageId?: string; success?: boolean; result?: unknown; errorCode?: string; message?: string; zwaveErrorMessage?: string; event?: ZwaveEvent; minSchemaVersion?: number; maxSchemaVersion?: number };
    try {
      message = JSON.parse(data.toString()) as typeof message;
    } catch {
      return;
    }
    if (message.type === 'version') return void this.handshake(socket, message.minSchemaVersion ?? 0, message.maxSchemaVersion ?? 0);
    if (message.type === 'event' && message.event !== undefined) {
      if (this.listening) this.handlers.onEvent(message.event);
      return;
    }
    if (message.type !== 'result' || message.messageId === undefined) return;
    const pending = this.pending.get(message.messageId);
    if (pending === undefined) return;
    this.pending.delete(message.messageId);
    clearTimeout(pending.timer);
    if (message.success === true) pending.resolve(message.result ?? {});
    else pending.reject(new ZwaveServerError(message.zwaveErrorMessage ?? message.message ?? message.errorCode ?? 'refused'));
  }

  private async handshake(socket: WebSocket, min: number, max: number): Promise<void> {
    if (ZWAVE_SCHEMA_VERSION < min || ZWAVE_SCHEMA_VERSION > max) {
      this.logger.error({ url: this.url, min, max, speaks: ZWAVE_SCHEMA_VERSION }, 'Z-Wave JS Server does not speak the schema version the bridge speaks');
      socket.close();
      return;
    }
    try {
      await this.send(socket, 'set_api_schema', { schemaVersion: ZWAVE_SCHEMA_VERSION }, 10_000);
      const result = await this.send(socket, 'start_listening', {}, 30_000) as { state?: { nodes?: ZwaveNodeState[] } };
      if (this.socket !== socket) return;
      this.listening = true;
      this.retryMs = FIRST_RETRY_MS;
      this.logger.info({ url: this.url, schemaVersion: ZWAVE_SCHEMA_VERSION }, 'Z-Wave JS Server connected');
      this.handlers.onState(result.state?.nodes ?? []);
    } catch (err) {
      this.logger.warn({ url: this.url, err: err instanceof Error ? err.message : String(err) }, 'Z-Wave JS Server handshake failed');
      socket.terminate();
    }
  }

  private send(socket: WebSocket, command: string, args: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    const messageId = String((this.nextId += 1));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(messageId);
        reject(new ZwaveServerError(`${command}: no answer in time`));
      }, Math.max(1, timeoutMs));
      this.pending.set(messageId, { resolve, reject, timer });
      socket.send(JSON.stringify({ messageId, command, ...args }), (err) => {
        if (!err) return;
        clearTimeout(timer);
        this.pending.delete(messageId);
        reject(new ZwaveServerError(`${command}: ${err.message}`));
      });
    });
  }
}
