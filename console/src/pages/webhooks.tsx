import { useState } from 'preact/hooks';
import type { Webhook } from '../api/types';
import { Check, ConfirmButton, ErrorText, Field, Form, Notice, Section, when } from '../components/ui';
import { useLocks } from '../hooks/locks';
import { useWebhookChanges, useWebhookDeliveries, useWebhooks } from '../hooks/webhooks';

/** The event types offered when making an endpoint (docs/webhooks.md); none ticked: every type. */
const EVENT_TYPES = [
  ['door.unlocked', 'Door unlocked'], ['door.locked', 'Door locked'], ['door.opened', 'Door opened'], ['door.closed', 'Door closed'],
  ['access.refused', 'Access refused'], ['access.shared', 'Access shared'], ['access.revoked', 'Access revoked'],
  ['member.promoted', 'Made administrator'], ['member.demoted', 'Made user'], ['lock.online', 'Lock online'], ['lock.offline', 'Lock offline'],
  ['alarm.raised', 'Alarm raised'], ['alarm.cleared', 'Alarm cleared'],
] as const;

/** An endpoint's delivery log: each delivery, its last attempt, and a button to send it again. */
function Deliveries({ hook }: { hook: Webhook }) {
  const deliveries = useWebhookDeliveries(hook.id);
  const { redeliver } = useWebhookChanges();
  const rows = deliveries.data ?? [];
  return (
    <div class="table-wrap">
      <table class="audit">
        <caption>Deliveries to {hook.url}, newest first</caption>
        <thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">State</th><th scope="col">Last attempt</th><th scope="col">Answer</th><th scope="col">Actions</th></tr></thead>
        <tbody>
          {rows.map((d) => {
            const last = d.log[0];
            return (
              <tr key={d.id} data-state={d.state} data-event={d.eventType}>
                <td>{when(d.created)}</td>
                <td>{d.eventType}</td>
                <td>{d.state}{d.attempts > 1 && ` (${d.attempts} attempts)`}</td>
                <td>{last ? `${when(last.at)}, ${Math.round(last.latencyMs)} ms` : 'not yet'}</td>
                <td>{last ? (last.status !== null ? `${last.status} ${last.responseExcerpt ?? ''}` : last.error) : ''}</td>
                <td><button type="button" class="secondary" disabled={redeliver.isPending} onClick={() => redeliver.mutate({ id: hook.id, deliveryId: d.id })}>Send again</button></td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {deliveries.isSuccess && rows.length === 0 && <p>Nothing delivered yet.</p>}
      <ErrorText error={deliveries.error ?? redeliver.error} />
    </div>
  );
}

function Endpoint({ hook }: { hook: Webhook }) {
  const { update, remove, rotate, test } = useWebhookChanges();
  const [secret, setSecret] = useState('');
  const [told, setTold] = useState('');
  return (
    <Section title={hook.description ?? hook.url}>
      <p>
        <code>{hook.url}</code>
        {' · '}{hook.eventTypes === null ? 'every event' : hook.eventTypes.join(', ')}
        {' · '}{hook.enabled ? 'enabled' : <strong>disabled</strong>}
        {hook.disabledReason && ` (${hook.disabledReason})`}
      </p>
      <div class="actions">
        <button type="button" class="secondary" disabled={update.isPending} onClick={() => update.mutate({ id: hook.id, changes: { enabled: !hook.enabled } })}>{hook.enabled ? 'Disable' : 'Enable'}</button>
        <button type="button" class="secondary" disabled={test.isPending} onClick={() => { setTold(''); test.mutate(hook.id, { onSuccess: () => setTold('Test event queued.') }); }}>Send a test event</button>
        <button type="button" class="secondary" disabled={rotate.isPending} onClick={() => rotate.mutate(hook.id, { onSuccess: (r) => setSecret(r.secret) })}>New secret</button>
        <ConfirmButton question={<>Delete this endpoint and its delivery log?</>} confirm="Delete endpoint" busy={remove.isPending} onConfirm={() => remove.mutate(hook.id)}>Delete</ConfirmButton>
      </div>
      {secret && <Notice>New secret (shown once; the old one still signs for a while): <code data-secret>{secret}</code></Notice>}
      {told && <Notice>{told}</Notice>}
      <ErrorText error={update.error ?? test.error ?? rotate.error ?? remove.error} />
      <Deliveries hook={hook} />
    </Section>
  );
}

/** Webhooks: endpoints that receive what happens at the doors you administer, and their delivery logs. */
export function WebhooksPage() {
  const hooks = useWebhooks();
  const locks = useLocks();
  const { create } = useWebhookChanges();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [types, setTypes] = useState<ReadonlySet<string>>(new Set());
  const [lockIds, setLockIds] = useState<ReadonlySet<string>>(new Set());
  const [secret, setSecret] = useState('');
  const doors = (locks.data ?? []).filter((lock) => lock.role === 'ADMIN');
  const toggle = (set: ReadonlySet<string>, value: string, on: boolean) => {
    const next = new Set(set);
    if (on) next.add(value);
    else next.delete(value);
    return next;
  };
  return (
    <main>
      <h1>Webhooks</h1>
      <p>Latchkey sends what happens at the doors you administer to these addresses, signed (Standard Webhooks) and with the proof that each event is in the signed audit log.</p>
      <ErrorText error={hooks.error} />
      <Form label="Add an endpoint" class="card" onSubmit={() => {
        setSecret('');
        create.mutate(
          {
            url: url.trim(),
            ...(description.trim() ? { description: description.trim() } : {}),
            ...(types.size > 0 ? { eventTypes: [...types] as NonNullable<Parameters<typeof create.mutate>[0]['eventTypes']> } : {}),
            ...(lockIds.size > 0 ? { lockIds: [...lockIds] } : {}),
          },
          { onSuccess: (made) => { setSecret(made.secret); setUrl(''); setDescription(''); setTypes(new Set()); setLockIds(new Set()); } },
        );
      }}>
        <h2>Add an endpoint</h2>
        <Field label="URL" type="url" required maxLength={2048} value={url} onValue={setUrl} hint="https:// advised. Every event is POSTed here." />
        <Field label="Description" maxLength={200} value={description} onValue={setDescription} />
        <fieldset class="door-group">
          <legend>Events (none ticked: every event)</legend>
          {EVENT_TYPES.map(([type, label]) => <Check key={type} label={label} checked={types.has(type)} onValue={(on) => setTypes(toggle(types, type, on))} />)}
        </fieldset>
        {doors.length > 0 && (
          <fieldset class="door-group">
            <legend>Doors (none ticked: every door you administer)</legend>
            {doors.map((lock) => <Check key={lock.id} label={lock.name} checked={lockIds.has(lock.id)} onValue={(on) => setLockIds(toggle(lockIds, lock.id, on))} />)}
          </fieldset>
        )}
        <button type="submit" disabled={create.isPending}>Add endpoint</button>
        <ErrorText error={create.error} />
      </Form>
      {secret && <Notice>The endpoint's secret, shown only now: <code data-secret>{secret}</code>. Keep it where your receiver can read it.</Notice>}
      {(hooks.data ?? []).map((hook) => <Endpoint key={hook.id} hook={hook} />)}
      {hooks.isSuccess && hooks.data.length === 0 && <p>You have no webhook endpoint yet.</p>}
    </main>
  );
}
