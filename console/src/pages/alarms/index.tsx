import type { Lock, Site } from '../../api/types';
import { AlarmBanner } from '../../components/alarms';
import { ErrorText, Link, Section } from '../../components/ui';
import { useAlarmList } from '../../hooks/alarms';
import { useAdministeredBySite, useLock, useLockNames } from '../../hooks/locks';
import { useLockdowns } from '../../hooks/lockdowns';
import { DeclareLockdown, LockdownCard } from './lockdown';
import { AlarmSettingsSection, AlarmTable } from './parts';

/**
 * The alarms pages (issue 31 point 4), loaded when first opened: every door's alarms and
 * lockdowns (/alarms), and one lock's (/locks/{id}/alarms). Live ALARM_ and LOCKDOWN_ entries
 * read them again (hooks/live.ts).
 */

/** The lockdowns holding on these doors, each with its lift. */
function Lockdowns({ scope, nameOf }: { scope: { siteId?: string; lockId?: string }; nameOf: (lockId: string) => string }) {
  const lockdowns = useLockdowns(scope);
  return (
    <>
      <ErrorText error={lockdowns.error} />
      {(lockdowns.data ?? []).map((lockdown) => <LockdownCard key={lockdown.id} lockdown={lockdown} nameOf={nameOf} />)}
    </>
  );
}

/** One site: its lockdown button, its lockdowns, its alarms. */
function SiteAlarms({ site, locks, nameOf }: { site: Site; locks: Lock[]; nameOf: (lockId: string) => string }) {
  const alarms = useAlarmList({ siteId: site.id });
  // A lock already locked down cannot be locked down again: the button names the others.
  const free = locks.filter((lock) => lock.state.lockedDown !== true).map((lock) => lock.id);
  return (
    <Section title={site.name}>
      <DeclareLockdown sub={site.id} lockIds={free} title={site.name} />
      <Lockdowns scope={{ siteId: site.id }} nameOf={nameOf} />
      <ErrorText error={alarms.error} />
      {alarms.data && <AlarmTable alarms={alarms.data.open} caption="Open alarms" nameOf={nameOf} />}
      {alarms.data && <AlarmTable alarms={alarms.data.history} caption="History" nameOf={nameOf} />}
    </Section>
  );
}

export function AlarmsPage() {
  const { groups, error } = useAdministeredBySite();
  const nameOf = useLockNames();
  const alone = groups.find((group) => !group.site)?.locks ?? [];
  const all = useAlarmList();
  return (
    <main>
      <h1>Alarms</h1>
      <ErrorText error={error} />
      {groups.map(({ site, locks: inSite }) => site && <SiteAlarms key={site.id} site={site} locks={inSite} nameOf={nameOf} />)}
      {alone.length > 0 && (
        <Section title="Doors without a site">
          <ul class="plain">{alone.map((lock) => <li key={lock.id}><Link to={`/locks/${lock.id}/alarms`}>{lock.name}</Link> <AlarmBanner lock={lock} compact /></li>)}</ul>
          <ErrorText error={all.error} />
          {all.data && <AlarmTable alarms={all.data.open.filter((a) => alone.some((l) => l.id === a.lockId))} caption="Open alarms" nameOf={nameOf} />}
        </Section>
      )}
    </main>
  );
}

/** One lock's alarms: open, history, settings, and its own lockdown and lift. */
export function LockAlarmsPage({ lockId }: { lockId: string }) {
  const lock = useLock(lockId);
  const alarms = useAlarmList({ lockId });
  const nameOf = useLockNames();
  if (lock.error) return <main><h1>Alarms</h1><ErrorText error={lock.error} /></main>;
  if (!lock.data) return <main><p role="status">Loading…</p></main>;
  const data = lock.data;
  return (
    <main>
      <p><Link to={`/locks/${lockId}`}>← {data.name}</Link></p>
      <h1>Alarms of {data.name}</h1>
      <AlarmBanner lock={data} />
      <Section title="Lockdown">
        {data.state.lockedDown !== true && <DeclareLockdown sub={lockId} lockIds={[lockId]} title={data.name} />}
        <Lockdowns scope={{ lockId }} nameOf={nameOf} />
      </Section>
      <Section title="Alarms">
        <ErrorText error={alarms.error} />
        {alarms.data && <AlarmTable alarms={alarms.data.open} caption="Open alarms" />}
        {alarms.data && <AlarmTable alarms={alarms.data.history} caption="History" />}
      </Section>
      <AlarmSettingsSection lockId={lockId} />
    </main>
  );
}
