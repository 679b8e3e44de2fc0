/** What a page shows of an audit entry; `issuer` is the actor, or the lock for what the lock reports itself. */
export interface ShownEntry {
  lockId: string;
  timestamp: number;
  type: string;
  issuer: string;
  message?: string;
  rejected?: boolean;
  subject?: string | null;
  /** The actor's email and display name the row shows (a lock's log); matched when the proof carries them. */
  actorEmail?: string | null;
  actorDisplayName?: string | null;
}

/** A key naming what a page shows of an entry (the page and the lazily loaded checker share it). */
export function shownKey(entry: ShownEntry): string {
  return [entry.lockId, entry.timestamp, entry.type, entry.issuer, entry.message ?? '', entry.rejected ?? '', entry.subject ?? ''].join('|');
}
