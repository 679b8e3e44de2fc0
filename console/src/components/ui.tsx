import type { ComponentChildren, JSX } from 'preact';
import { useId } from 'preact/hooks';
import { BASE, navigate } from '../hooks/router';

/** A link inside the console that navigates without a reload. */
export function Link(props: { to: string; children: ComponentChildren; class?: string; label?: string }) {
  const href = `${BASE}${props.to}`;
  const onClick = (event: MouseEvent) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(props.to);
  };
  return <a href={href} class={props.class} onClick={onClick} aria-label={props.label}>{props.children}</a>;
}

type InputProps = Omit<JSX.IntrinsicElements['input'], 'onInput' | 'value' | 'label'> & { label: string; value: string; onValue: (value: string) => void; hint?: string };

/** A labelled input; its hint is tied to it for screen readers. */
export function Field({ label, value, onValue, hint, ...rest }: InputProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} value={value} onInput={(e) => onValue((e.target as HTMLInputElement).value)} aria-describedby={hint ? `${id}-hint` : undefined} {...rest} />
      {hint && <small id={`${id}-hint`}>{hint}</small>}
    </div>
  );
}

export function Select<T extends string>(props: { label: string; value: T; options: Array<[T, string]>; onValue: (value: T) => void }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(e) => props.onValue((e.target as HTMLSelectElement).value as T)}>
        {props.options.map(([value, text]) => <option key={value} value={value}>{text}</option>)}
      </select>
    </div>
  );
}

export function Check(props: { label: string; checked: boolean; onValue: (checked: boolean) => void }) {
  const id = useId();
  return (
    <div class="check">
      <input id={id} type="checkbox" checked={props.checked} onChange={(e) => props.onValue((e.target as HTMLInputElement).checked)} />
      <label for={id}>{props.label}</label>
    </div>
  );
}

/** An error (any thrown value) as a sentence, announced to screen readers. */
export function ErrorText({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  return <p class="error" role="alert">{message}</p>;
}

export function Notice({ children }: { children: ComponentChildren }) {
  return <p class="notice" role="status">{children}</p>;
}

export function Form(props: { onSubmit: () => void | Promise<void>; children: ComponentChildren; label: string; class?: string }) {
  return (
    <form
      class={props.class ?? 'card'}
      aria-label={props.label}
      onSubmit={(e) => {
        e.preventDefault();
        void props.onSubmit();
      }}
    >
      {props.children}
    </form>
  );
}

export function Section(props: { title: string; children: ComponentChildren }) {
  return (
    <section class="card" aria-label={props.title}>
      <h2>{props.title}</h2>
      {props.children}
    </section>
  );
}

/** Unix seconds as the viewer's local date and time. */
export function when(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  return new Date(seconds * 1000).toLocaleString();
}

/** A datetime-local value as Unix seconds; null when empty. */
export function fromLocalInput(value: string): number | null {
  return value ? Math.floor(new Date(value).getTime() / 1000) : null;
}

export function toLocalInput(seconds: number | null): string {
  if (seconds === null) return '';
  const d = new Date(seconds * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
