import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorText } from './ui';

/**
 * A part of the console loaded on demand (import()), so the first load does not carry it: shows
 * "Loading…" until its module is here, then what `render` makes of it.
 */
export function Lazy<M>({ load, render }: { load: () => Promise<M>; render: (module: M) => ComponentChildren }) {
  const [module, setModule] = useState<M | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let current = true;
    load().then((loaded) => current && setModule(() => loaded), (err: unknown) => current && setError(err));
    return () => {
      current = false;
    };
  }, [load]);
  if (error) return <main><ErrorText error={error} /></main>;
  if (module === null) return <main><p role="status">Loading…</p></main>;
  return <>{render(module)}</>;
}
