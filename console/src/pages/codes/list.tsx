import { useState } from 'preact/hooks';
import type { CodeOnLock, KeypadCode } from '../../api/types';
import { describeHours } from '../../components/hours';
import { ConfirmButton, ErrorText, Form, when } from '../../components/ui';
import { placedLocks, useChangeCode, useRevokeCode, type CodeTerms } from '../../hooks/codes';
import { together } from '../../hooks/mutations';
import { TermsFields } from './form';

const STATUS: Record<CodeOnLock['status'], { text: string; tone: string }> = {
  active: { text: 'active', tone: 'ok' },
  scheduled: { text: 'not begun', tone: 'neutral' },
  expired: { text: 'expired', tone: 'neutral' },
  used_up: { text: 'used up', tone: 'neutral' },
  revoked: { text: 'revoked', tone: 'neutral' },
  holder_access_ended: { text: "holder's access ended", tone: 'warn' },
};

const SYNC: Record<CodeOnLock['sync']['state'], { text: string; tone: string }> = {
  pending: { text: 'waiting for the lock', tone: 'open' },
  applied: { text: 'on the lock', tone: 'ok' },
  failed: { text: 'refused by the lock', tone: 'warn' },
};

function windowOf(code: KeypadCode): string {
  if (code.start === null && code.end === null) return 'No time limit';
  return `From ${code.start === null ? 'its creation' : when(code.start)} until ${code.end === null ? 'revoked' : when(code.end)}`;
}

function uses(code: KeypadCode): string {
  if (code.maxUses === null) return `${code.uses} use${code.uses === 1 ? '' : 's'}, unlimited`;
  if (code.maxUses === 1) return `One-time: ${code.uses === 0 ? 'not used yet' : 'used'}`;
  return `${code.uses} of ${code.maxUses} uses`;
}

/** The code on one lock: its state, whether the lock holds its last change, its uses there. */
function OnLock({ place, name }: { place: CodeOnLock; name: string }) {
  const status = STATUS[place.status];
  const sync = SYNC[place.sync.state];
  return (
    <li data-lock={place.lockId}>
      <strong>{name}</strong>{' '}
      <span class={`badge ${status.tone}`} data-status={place.status}>{status.text}</span>
      <span class={`badge ${sync.tone}`} data-sync={place.sync.state}>{sync.text}</span>
      {place.sync.error && <span class="muted"> {place.sync.error}</span>}
      <div class="muted" data-last-use={place.lastUsedAt === null ? 'never' : 'yes'}>
        {place.uses === 0 ? 'Not used here yet' : `Used ${place.uses} time${place.uses === 1 ? '' : 's'} here, last ${when(place.lastUsedAt)}`}
      </div>
    </li>
  );
}

/** A code as its administrators see it (never its digits), with change and revoke. */
export function CodeItem({ code, nameOf }: { code: KeypadCode; nameOf: (lockId: string) => string }) {
  const change = useChangeCode(code);
  const revoke = useRevokeCode(code);
  const { error, busy } = together(change, revoke);
  const [editing, setEditing] = useState(false);
  const [terms, setTerms] = useState<CodeTerms>({ start: code.start, end: code.end, schedule: code.schedule, maxUses: code.maxUses });
  const who = code.holder.name ?? (code.holder.kind === 'guest' ? 'a guest' : 'a member');
  const live = placedLocks(code).length > 0;
  return (
    <li class="member code" data-code={code.id}>
      <div>
        <strong>{who}</strong> <span class="role">{code.holder.kind === 'guest' ? 'guest' : 'member'}</span> <span class="muted">{code.length} digits</span>
      </div>
      <div class="muted">{windowOf(code)}</div>
      {code.schedule && <div class="muted" data-hours="true">Hours: {describeHours(code.schedule)}</div>}
      <div class="muted">{uses(code)}</div>
      <ul class="code-locks" aria-label={`Doors of ${who}'s code`}>{code.locks.map((place) => <OnLock key={place.lockId} place={place} name={nameOf(place.lockId)} />)}</ul>
      {live && !editing && (
        <div class="actions">
          <button type="button" class="secondary" onClick={() => setEditing(true)} aria-label={`Change ${who}'s code`}>Change</button>
          <ConfirmButton busy={busy} label={`Revoke ${who}'s code`} confirm="Yes, revoke it" question={`Revoke ${who}'s code? It stops opening ${placedLocks(code).map(nameOf).join(', ')} as soon as each lock hears of it.`} onConfirm={() => revoke.mutate()}>Revoke</ConfirmButton>
        </div>
      )}
      {editing && (
        <Form label={`Change ${who}'s code`} class="inline-form" onSubmit={() => change.mutate(terms, { onSuccess: () => setEditing(false) })}>
          <TermsFields terms={terms} onTerms={setTerms} />
          <button type="submit" disabled={busy}>Save</button>
          <button type="button" class="secondary" onClick={() => setEditing(false)}>Cancel</button>
        </Form>
      )}
      <ErrorText error={error} />
    </li>
  );
}
