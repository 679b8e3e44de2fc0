import { useState } from 'preact/hooks';
import { DoorPicker } from '../../components/door-picker';
import { ErrorText, Link, Section } from '../../components/ui';
import { useCodes } from '../../hooks/codes';
import { useLock, useLockNames } from '../../hooks/locks';
import { NewCodeForm } from './form';
import { CodeItem } from './list';

/**
 * Keypad codes (docs/keypad-codes.md), loaded on demand: a lock's (/locks/{id}/codes) or a set of
 * doors kept in step (/codes). Only their administrators reach them; every change is signed here.
 */

function CodeList({ lockIds, nameOf }: { lockIds: readonly string[]; nameOf: (lockId: string) => string }) {
  const { codes, error, loading } = useCodes(lockIds);
  return (
    <Section title="Codes">
      <ErrorText error={error} />
      {loading && <p role="status">Loading…</p>}
      {!loading && codes.length === 0 && <p>No code yet.</p>}
      <ul class="members codes">{codes.map((code) => <CodeItem key={code.id} code={code} nameOf={nameOf} />)}</ul>
    </Section>
  );
}

export function LockCodesPage({ lockId }: { lockId: string }) {
  const lock = useLock(lockId);
  const nameOf = useLockNames();
  if (lock.error) return <main><h1>Keypad codes</h1><ErrorText error={lock.error} /><p><Link to="/">Back to your locks</Link></p></main>;
  if (!lock.data) return <main><p role="status">Loading…</p></main>;
  const name = lock.data.name;
  if (lock.data.role !== 'ADMIN') return <main><h1>Keypad codes</h1><p>Only the lock's administrators see its codes.</p><p><Link to={`/locks/${lockId}`}>← {name}</Link></p></main>;
  return (
    <main>
      <p><Link to={`/locks/${lockId}`}>← {name}</Link></p>
      <h1>Keypad codes of {name}</h1>
      <NewCodeForm lockIds={[lockId]} nameOf={(id) => (id === lockId ? name : nameOf(id))} />
      <CodeList lockIds={[lockId]} nameOf={(id) => (id === lockId ? name : nameOf(id))} />
    </main>
  );
}

/** One code for several doors (or a whole site), kept in step: one signed ADD_CODE per door. */
export function CodesPage() {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const nameOf = useLockNames();
  const lockIds = [...selected];
  return (
    <main>
      <h1>Keypad codes</h1>
      <DoorPicker selected={selected} onSelected={setSelected} verb="see and give codes for" />
      {lockIds.length > 0 && <NewCodeForm lockIds={lockIds} nameOf={nameOf} />}
      {lockIds.length > 0 && <CodeList lockIds={lockIds} nameOf={nameOf} />}
    </main>
  );
}
