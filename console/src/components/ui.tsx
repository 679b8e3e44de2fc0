import type { ComponentChildren, JSX } from 'preact';
import { useId, useState } from 'preact/hooks';
import { BASE, appPath, navigate } from '../hooks/router';

/** A link inside the console that navigates without a reload; the link to the page shown is marked current. */
export function Link(props: { to: string; children: ComponentChildren; class?: string; label?: string }) {
  const href = `${BASE}${props.to}`;
  const onClick = (event: MouseEvent) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(props.to);
  };
  const current = appPath() === props.to.split('?')[0];
  return <a href={href} class={props.class} onClick={onClick} aria-label={props.label} aria-current={current ? 'page' : undefined}>{props.children}</a>;
}

/**
 * A destructive action asked twice: the button shows what will happen and waits for "Yes" (or
 * Cancel). `question` says what follows, in plain words.
 */
export function ConfirmButton(props: { children: ComponentChildren; question: ComponentChildren; confirm: string; onConfirm: () => void; busy?: boolean; label?: string; class?: string }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return <button type="button" class={props.class ?? 'danger'} disabled={props.busy} aria-label={props.label} onClick={() => setAsking(true)}>{props.children}</button>;
  }
  return (
    <div class="confirm" role="group" aria-label={props.label ?? props.confirm}>
      <p>{props.question}</p>
      <button type="button" class="danger" disabled={props.busy} onClick={() => { setAsking(false); props.onConfirm(); }}>{props.confirm}</button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>Cancel</button>
    </div>
  );
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

/** A time of day, typed in 24-hour form (HH:MM) whatever the browser's locale. */
export function TimeField(props: { label: string; value: string; onValue: (value: string) => void; required?: boolean }) {
  return <Field label={props.label} inputMode="numeric" pattern="([01][0-9]|2[0-3]):[0-5][0-9]" maxLength={5} placeholder="HH:MM" hint="24-hour, e.g. 08:00 or 18:30." required={props.required} value={props.value} onValue={props.onValue} />;
}

export const DAY_NAMES = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;
/** MONDAY → Monday: day names read in full. */
export const dayName = (day: string) => day.charAt(0) + day.slice(1).toLowerCase();

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
