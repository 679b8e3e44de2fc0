import type { UseQueryResult } from '@tanstack/preact-query';
import type { EntryCheck, Verification } from '../api/audit-proof';
import { shownKey, type ShownEntry } from '../api/shown-entry';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** An entry's check in a finished verification; `unchecked` when it arrived after the check began. */
export function checkOf(verification: Verification | undefined, entry: ShownEntry): EntryCheck {
  if (verification?.problem) return { status: 'failed', reason: verification.problem };
  return verification?.checks.get(shownKey(entry)) ?? { status: 'unchecked' };
}

/** The table cell of an entry's check. */
export function CheckCell({ check }: { check: EntryCheck }) {
  switch (check.status) {
    case 'verified': return <td class="verdict ok">✓ verified</td>;
    case 'pending': return <td class="verdict">not yet signed</td>;
    case 'failed': return <td class="verdict fail">✗ does not verify<small>{check.reason}</small></td>;
    case 'unavailable': return <td class="verdict muted">admins only</td>;
    default: return <td class="verdict muted">checking…</td>;
  }
}

/** One sentence on the whole page: verified against checkpoint N, or what is wrong or still waiting. */
export function VerificationSummary({ query, entries }: { query: UseQueryResult<Verification>; entries: ShownEntry[] }) {
  if (entries.length === 0) return null;
  if (query.isPending) return <p class="verify" role="status">Checking these entries against the signed audit log…</p>;
  if (query.error) return <p class="verify warn" role="status">These entries could not be checked against the signed audit log: {query.error.message}</p>;
  const verification = query.data;
  if (verification.problem) {
    return <p class="verify fail" role="alert">✗ The signed audit log does not check out: {verification.problem}. Nothing on this page can be shown to be unchanged.</p>;
  }
  const checks = entries.map((entry) => checkOf(verification, entry));
  const count = (status: EntryCheck['status']) => checks.filter((c) => c.status === status).length;
  const failed = checks.find((c) => c.status === 'failed');
  const verified = count('verified');
  const parts: string[] = [];
  if (verification.checkpoint === null) parts.push('The service has not signed a checkpoint of its audit log yet.');
  else if (verified === entries.length) parts.push(`✓ All ${plural(verified, 'entry', 'entries')} verified against checkpoint ${verification.checkpoint.size}, signed by ${verification.checkpoint.origin}.`);
  else if (verified > 0) parts.push(`✓ ${plural(verified, 'entry', 'entries')} verified against checkpoint ${verification.checkpoint.size}.`);
  if (count('pending')) parts.push(`${plural(count('pending'), 'entry is', 'entries are')} not yet in a signed checkpoint; checked again in a moment.`);
  if (count('unavailable')) parts.push(`${plural(count('unavailable'), 'entry is', 'entries are')} on locks you do not administer: only a lock's admins can check its entries.`);
  if (count('unchecked')) parts.push(`${plural(count('unchecked'), 'entry was', 'entries were')} not checked (newer than the check, or too old: narrow the period).`);
  return (
    <>
      {failed && (
        <p class="verify fail" role="alert">
          {count('failed') === 1 ? `✗ 1 entry does not verify against the signed audit log: ${failed.reason}.` : `✗ ${count('failed')} entries do not verify against the signed audit log (marked below); the newest: ${failed.reason}.`}
        </p>
      )}
      <p class={verified === entries.length ? 'verify ok' : 'verify'} role="status">{parts.join(' ')}</p>
    </>
  );
}
