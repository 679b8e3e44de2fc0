import type { ApiClient } from './client';
import type { LiveEntry } from './types';

/**
 * Follows GET /device/events for `lockIds` (fetch, since EventSource cannot send a bearer token),
 * resuming after the last event id when the connection drops. Returns the function that stops it.
 */
export function followLocks(api: ApiClient, lockIds: string[], onEntry: (entry: LiveEntry) => void, onError?: (message: string) => void): () => void {
  const controller = new AbortController();
  let lastEventId: string | undefined;
  let stopped = false;
  const query = lockIds.map((id) => `device=${encodeURIComponent(id)}`).join('&');

  const readOnce = async (): Promise<boolean> => {
    const response = await api.openAuthenticated(`/device/events?${query}`, 'text/event-stream', controller.signal, lastEventId);
    if (!response.ok || !response.body) {
      onError?.(`Live updates stopped (${response.status})`);
      return response.status >= 500;
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return true;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let data = '';
        for (const line of frame.split('\n')) {
          if (line.startsWith('id: ')) lastEventId = line.slice(4);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        if (data) onEntry(JSON.parse(data) as LiveEntry);
      }
    }
  };

  void (async () => {
    let delay = 1000;
    while (!stopped) {
      try {
        if (!(await readOnce())) return;
        delay = 1000;
      } catch {
        if (stopped) return;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 30_000);
    }
  })();
  return () => {
    stopped = true;
    controller.abort();
  };
}
