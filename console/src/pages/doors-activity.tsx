import { useQuery } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { lockLog } from '../api/endpoints';
import type { Lock, LockLogEntry } from '../api/types';
import { Check, ErrorText, Field, Section, Select, when } from '../components/ui';
import { useApi } from '../hooks/context';
import { useLocks, useSiteOfLock } from '../hooks/locks';
import { queryKeys } from '../hooks/query-keys';

/** What happened, in plain words, after the name of whoever did it. */
const DONE: Record<string, [done: string, tried: string]> = {
  DOOR_UNLOCK: ['unlocked the door', 'tried to unlock the door'],
  DOOR_LOCK: ['locked the door', 'tried to lock the door'],
  DOOR_OPEN: ['the door opened', 'the door opened'],
  DOOR_CLOSE: ['the door closed', 'the door closed'],
  OWNER_ASSIGNED: ['claimed the lock', 'tried to claim the lock'],
  DEVICE_CONNECTED: ['came online', 'came online'],
  DEVICE_DISCONNECTED: ['went offline', 'went offline'],
  LOCK_SHARED: ['shared the door', 'tried to share the door'],
  LOCK_REVOKED: ['took access away', 'tried to take access away'],
  USER_PROMOTED: ['made an admin', 'tried to make an admin'],
  USER_DEMOTED: ['made a user', 'tried to make a user'],
};

/** The kinds a manager filters by. */
const KINDS: Array<[string, string, readonly string[]]> = [
  ['', 'Everything', []],
  ['doors', 'Unlocks and locks', ['DOOR_UNLOCK', 'DOOR_LOCK', 'DOOR_OPEN', 'DOOR_CLOSE']],
  ['people', 'Who has access', ['LOCK_SHARED', 'LOCK_REVOKED', 'USER_PROMOTED', 'USER_DEMOTED', 'OWNER_ASSIGNED']],
  ['presence', 'Online and offline', ['DEVICE_CONNECTED', 'DEVICE_DISCONNECTED']],
];

interface FeedRow { lockId: string; door: string; site: string; siteId: string; entry: LockLogEntry }

const person = (e: LockLogEntry) => e.displayName ?? e.email ?? e.issuer?.email ?? (e.type.startsWith('DEVICE_') || e.type.startsWith('DOOR_O') || e.type === 'DOOR_CLOSE' ? 'The lock' : 'Someone');

/** One entry as a sentence: "Sam unlocked the door", "Sam tried to unlock the door: refused, outside the share's weekly hours". */
function sentence(e: LockLogEntry): string {
  const [done, tried] = DONE[e.type] ?? [e.type.toLowerCase().replace(/_/g, ' '), e.type.toLowerCase().replace(/_/g, ' ')];
  const subject = e.subject && e.subject.userId !== e.user ? ` (${e.subject.email ?? e.subject.displayName ?? 'someone'})` : '';
  // The stored reason reads "<attempt> refused: <why>": the why is what a person needs.
  const why = (e.rejectionReason ?? e.message).replace(/^.*?refused:\s*/, '');
  if (e.rejected) return `${person(e)} ${tried}${subject}: refused${why ? `, ${why}` : ''}`;
  return `${person(e)} ${done}${subject}`;
}

/** The doors offline now, each with when it was last seen (its last disconnection in the trail). */
function Offline({ rows, doors, loaded }: { rows: FeedRow[]; doors: Lock[]; loaded: boolean }) {
  const offline = doors.filter((lock) => !lock.state.connected);
  const lastSeen = (lockId: string) => rows.find((r) => r.lockId === lockId && r.entry.type === 'DEVICE_DISCONNECTED')?.entry.timestamp;
  return (
    <Section title="Offline now">
      {offline.length === 0 ? <p>Every door is online.</p> : (
        <ul class="offline" aria-label="Offline doors">
          {offline.map((lock) => {
            const seen = lastSeen(lock.id);
            return <li key={lock.id} data-lock-id={lock.id}><strong>{lock.name}</strong> — {seen !== undefined ? `last seen ${when(seen)}` : loaded ? 'never seen online' : 'reading…'}</li>;
          })}
        </ul>
      )}
    </Section>
  );
}

/**
 * One feed across every door the caller administers, newest first, read again every few seconds
 * while open, filtered by person, door, site, kind and refusals.
 */
export function DoorsActivityPage() {
  const api = useApi();
  const locks = useLocks();
  const sites = useSiteOfLock();
  const doors = (locks.data ?? []).filter((lock) => lock.role === 'ADMIN');
  const ids = doors.map((lock) => lock.id).sort();
  const feed = useQuery({
    queryKey: queryKeys.doorsFeed(ids),
    queryFn: async (): Promise<FeedRow[]> => {
      const logs = await Promise.all(doors.map(async (lock) => ({ lock, entries: await lockLog(api, lock.id, null, null) })));
      return logs.flatMap(({ lock, entries }) => {
        const site = sites.data?.get(lock.id);
        return entries.map((entry) => ({ lockId: lock.id, door: lock.name, site: site?.name ?? '', siteId: site?.id ?? '', entry }));
      }).sort((a, b) => b.entry.timestamp - a.entry.timestamp);
    },
    enabled: locks.isSuccess && sites.isSuccess && ids.length > 0,
    refetchInterval: 3000,
  });
  const [who, setWho] = useState('');
  const [door, setDoor] = useState('');
  const [site, setSite] = useState('');
  const [kind, setKind] = useState('');
  const [refusedOnly, setRefusedOnly] = useState(false);
  const kinds = KINDS.find(([key]) => key === kind)?.[2] ?? [];
  const siteOptions = [...new Map((feed.data ?? []).filter((r) => r.siteId).map((r) => [r.siteId, r.site])).entries()];
  const rows = (feed.data ?? []).filter((r) =>
    (!who || sentence(r.entry).toLowerCase().includes(who.toLowerCase()))
    && (!door || r.lockId === door)
    && (!site || r.siteId === site)
    && (kinds.length === 0 || kinds.includes(r.entry.type))
    && (!refusedOnly || r.entry.rejected === true));
  return (
    <main>
      <h1>Activity across your doors</h1>
      <Offline rows={feed.data ?? []} doors={doors} loaded={feed.isSuccess} />
      <Section title="Filters">
        <div class="filters">
          <Field label="Person" value={who} onValue={setWho} hint="Part of a name or email." />
          <Select label="Door" value={door} options={[['', 'Every door'], ...doors.map((l): [string, string] => [l.id, l.name])]} onValue={setDoor} />
          <Select label="Site" value={site} options={[['', 'Every site'], ...siteOptions]} onValue={setSite} />
          <Select label="Kind" value={kind} options={KINDS.map(([key, label]): [string, string] => [key, label])} onValue={setKind} />
        </div>
        <Check label="Only refusals" checked={refusedOnly} onValue={setRefusedOnly} />
      </Section>
      <ErrorText error={feed.error ?? locks.error} />
      {ids.length === 0 && locks.isSuccess && <p>You administer no door yet.</p>}
      <div class="table-wrap">
        <table class="audit feed">
          <caption>What happened at your doors, newest first</caption>
          <thead><tr><th scope="col">When</th><th scope="col">Door</th><th scope="col">What happened</th></tr></thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={`${r.lockId}-${r.entry.timestamp}-${i}`} class={r.entry.rejected ? 'refused' : ''} data-type={r.entry.type}>
                <td>{when(r.entry.timestamp)}</td><td>{r.door}{r.site && <span class="muted"> · {r.site}</span>}</td><td>{sentence(r.entry)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {feed.isSuccess && rows.length === 0 && <p>Nothing matches these filters.</p>}
      </div>
    </main>
  );
}
