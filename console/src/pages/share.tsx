import { useState } from 'preact/hooks';
import { DoorPicker } from '../components/door-picker';
import { useLockNames } from '../hooks/locks';
import { ShareForm } from '../components/share-form';

/** One person, several doors or a whole site, in one step: each door still gets its own signed share. */
export function SharePage() {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const nameOf = useLockNames();
  return (
    <main>
      <h1>Share doors</h1>
      <DoorPicker selected={selected} onSelected={setSelected} verb="share" />
      <ShareForm lockIds={[...selected]} nameOf={nameOf} title="With" />
    </main>
  );
}
