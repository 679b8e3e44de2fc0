/** A minimal SSE reader over fetch for tests: collects frames, can wait for a count or the end. */
export interface SseEvent {
  event: string;
  id: string;
  data: any;
}

export interface SseStream {
  status: number;
  headers: Headers;
  events: SseEvent[];
  comments: string[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  waitFor(count: number): Promise<SseEvent[]>;
  close(): void;
}

export async function openStream(baseUrl: string, path: string, options: { token: string; lastEventId?: string }): Promise<SseStream> {
  const controller = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${options.token}`, accept: 'text/event-stream' };
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  const response = await fetch(baseUrl + path, { headers, signal: controller.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const listeners = new Set<() => void>();
  let buffer = '';
  const parse = (block: string) => {
    const fields: Record<string, string> = {};
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) comments.push(line.slice(1).trim());
      else {
        const at = line.indexOf(': ');
        if (at > 0) fields[line.slice(0, at)] = line.slice(at + 2);
      }
    }
    if (fields.event !== undefined) events.push({ event: fields.event, id: fields.id ?? '', data: JSON.parse(fields.data ?? 'null') });
  };
  const ended = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let split: number;
        while ((split = buffer.indexOf('\n\n')) >= 0) {
          parse(buffer.slice(0, split));
          buffer = buffer.slice(split + 2);
        }
        for (const listener of listeners) listener();
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    status: response.status,
    headers: response.headers,
    events,
    comments,
    ended,
    waitFor(count) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (events.length >= count) {
            cleanup();
            resolve(events.slice(0, count));
          }
        };
        const timer = setTimeout(() => { cleanup(); reject(new Error(`only ${events.length} of ${count} events within 5 s`)); }, 5000);
        const cleanup = () => { clearTimeout(timer); listeners.delete(check); };
        listeners.add(check);
        check();
      });
    },
    close: () => controller.abort(),
  };
}
