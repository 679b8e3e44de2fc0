/**
 * The position of an event stream: the last audit `seq` sent per lock. Global sequence numbers
 * can commit out of order across locks on PostgreSQL (per lock they cannot: recordAudit
 * serialises each lock's writers), so one number cannot say where a multi-lock stream stands.
 *
 * Encoding, used as the SSE `id`: the per-lock sequences in the order of the stream's sorted
 * lock ids, joined by `.` — `"57"` for one lock (just its sequence), `"12.0.57"` for three.
 */
export type Cursor = Map<string, number>;

const SEQ = /^\d{1,15}$/;

export function encodeCursor(lockIds: readonly string[], cursor: Cursor): string {
  return lockIds.map((id) => String(cursor.get(id) ?? 0)).join('.');
}

/** Undefined when `text` is not a cursor of a stream of exactly these (sorted) locks. */
export function decodeCursor(lockIds: readonly string[], text: string): Cursor | undefined {
  const parts = text.trim().split('.');
  if (parts.length !== lockIds.length || !parts.every((part) => SEQ.test(part))) return undefined;
  return new Map(lockIds.map((id, index) => [id, Number(parts[index])]));
}
