import { useState } from 'preact/hooks';
import type { UrlListName } from '../api/endpoints';
import type { Application } from '../api/types';
import { ConfirmButton, ErrorText, Field, Form, Link, Notice, Section } from '../components/ui';
import { useApplication, useApplications, useAuthKeys, useCreateApplication, useDeleteApplication, useUpdateApplication, useUploadLogo, useUrlList } from '../hooks/apps';
import { together } from '../hooks/mutations';

export function AppsPage() {
  const apps = useApplications();
  const create = useCreateApplication();
  const [name, setName] = useState('');
  const [company, setCompany] = useState('');
  const [address, setAddress] = useState('');
  return (
    <main>
      <h1>Developers</h1>
      <Section title="Your applications">
        <ErrorText error={apps.error} />
        {apps.data?.length === 0 && <p>No applications yet.</p>}
        <ul>{(apps.data ?? []).map((a) => <li key={a.applicationId}><Link to={`/apps/${a.applicationId}`}>{a.name}</Link> <span class="muted">{a.companyName}</span></li>)}</ul>
      </Section>
      <Form label="Create an application" onSubmit={() => create.mutate({ name, companyName: company, mailingAddress: address })}>
        <h2>Create an application</h2>
        <Field label="Application name" required value={name} onValue={setName} />
        <Field label="Company name" required value={company} onValue={setCompany} />
        <Field label="Mailing address" type="email" required value={address} onValue={setAddress} hint="Where the service writes to you about this application." />
        <button type="submit" disabled={create.isPending}>Create application</button>
        <ErrorText error={create.error} />
      </Form>
    </main>
  );
}

/** A list of URLs added and removed one by one (issuers, CORS origins). */
function UrlList({ app, list, title, itemLabel, items }: { app: Application; list: UrlListName; title: string; itemLabel: string; items: string[] }) {
  const [url, setUrl] = useState('');
  const { add, remove } = useUrlList(app.applicationId, list);
  const { error, busy } = together(add, remove);
  return (
    <Section title={title}>
      <ul>{items.map((item) => <li key={item}>{item} <button type="button" class="secondary" onClick={() => remove.mutate(item)} aria-label={`Remove ${item}`}>Remove</button></li>)}</ul>
      <Form label={`Add to ${title}`} class="inline-form" onSubmit={() => add.mutate(url.trim(), { onSuccess: () => setUrl('') })}>
        <Field label={`New ${itemLabel}`} type="url" required value={url} onValue={setUrl} />
        <button type="submit" disabled={busy}>Add {itemLabel}</button>
      </Form>
      <ErrorText error={error} />
    </Section>
  );
}

function Branding({ app }: { app: Application }) {
  const prefs = app.emailPreferences ?? {};
  const [senderName, setSenderName] = useState(prefs.senderName ?? app.name);
  const [senderEmail, setSenderEmail] = useState(prefs.senderEmail ?? '');
  const [primary, setPrimary] = useState(prefs.primaryColour ?? '#1f4e79');
  const [secondary, setSecondary] = useState(prefs.secondaryColour ?? '#f2f5f8');
  const [support, setSupport] = useState(app.supportContact ?? '');
  const [saved, setSaved] = useState('');
  const update = useUpdateApplication(app.applicationId);
  const logo = useUploadLogo(app.applicationId);
  return (
    <Section title="Branding and email">
      <Form label="Branding" class="inline-form" onSubmit={() => update.mutate(
        { supportContact: support || null, emailPreferences: { senderName, ...(senderEmail ? { senderEmail } : {}), primaryColour: primary, secondaryColour: secondary } },
        { onSuccess: () => setSaved('Branding saved.') },
      )}>
        <Field label="Sender name" value={senderName} onValue={setSenderName} />
        <Field label="Sender email" type="email" value={senderEmail} onValue={setSenderEmail} />
        <Field label="Primary colour" type="color" value={primary} onValue={setPrimary} />
        <Field label="Secondary colour" type="color" value={secondary} onValue={setSecondary} />
        <Field label="Support contact" value={support} onValue={setSupport} />
        <button type="submit" disabled={update.isPending}>Save branding</button>
      </Form>
      {saved && <Notice>{saved}</Notice>}
      <ErrorText error={update.error} />
      <figure class="email-preview" style={{ background: secondary }} aria-label="Email preview">
        {app.logoUrl && <img src={app.logoUrl} alt={`${app.name} logo`} height={40} />}
        <p class="preview-from">From: {senderName}{senderEmail ? ` <${senderEmail}>` : ''}</p>
        <h3 style={{ color: primary }}>Verify your email for {senderName}</h3>
        <p>Please confirm that this is your email address.</p>
        <span class="preview-button" style={{ background: primary }}>Verify email</span>
        <figcaption>Preview of the emails your users receive</figcaption>
      </figure>
      <div class="field">
        <label for="logo-file">Logo (PNG, JPEG or SVG)</label>
        <input id="logo-file" type="file" accept="image/png,image/jpeg,image/svg+xml,image/gif,image/webp" onChange={(e) => {
          const file = (e.target as HTMLInputElement).files?.[0];
          if (file) logo.mutate(file, { onSuccess: () => setSaved('Logo uploaded.') });
        }} />
      </div>
      <ErrorText error={logo.error} />
    </Section>
  );
}

function AuthKeys({ app }: { app: Application }) {
  const [jwk, setJwk] = useState('');
  const { add, remove } = useAuthKeys(app.applicationId);
  const { error, busy } = together(add, remove);
  const kids = Object.keys(app.authKeys ?? {});
  return (
    <Section title="Auth keys">
      <ul>{kids.map((kid) => <li key={kid}><code>{kid}</code> <button type="button" class="secondary" aria-label={`Remove key ${kid}`} onClick={() => remove.mutate(kid)}>Remove</button></li>)}</ul>
      <Form label="Add an auth key" class="inline-form" onSubmit={() => add.mutate(jwk, { onSuccess: () => setJwk('') })}>
        <div class="field">
          <label for="jwk">Public key (JWK)</label>
          <textarea id="jwk" rows={4} required value={jwk} onInput={(e) => setJwk((e.target as HTMLTextAreaElement).value)} />
        </div>
        <button type="submit" disabled={busy}>Add key</button>
      </Form>
      <ErrorText error={error} />
    </Section>
  );
}

export function AppPage({ id }: { id: string }) {
  const app = useApplication(id);
  const remove = useDeleteApplication(id);
  if (app.error) return <main><h1>Application</h1><ErrorText error={app.error} /></main>;
  if (!app.data) return <main><p role="status">Loading…</p></main>;
  const a = app.data;
  return (
    <main>
      <p><Link to="/apps">← Applications</Link></p>
      <h1>{a.name}</h1>
      <p class="muted">{a.companyName} · id <code>{a.applicationId}</code></p>
      <Branding app={a} />
      <AuthKeys app={a} />
      <UrlList app={a} list="auth/issuer" title="Issuers" itemLabel="issuer" items={a.authDomains} />
      <UrlList app={a} list="cors" title="CORS origins" itemLabel="CORS origin" items={a.corsDomains} />
      <Section title="Owners">
        <ul>{a.owners.map((owner) => <li key={owner}><code>{owner}</code></li>)}</ul>
      </Section>
      <Section title="Delete">
        <ConfirmButton busy={remove.isPending} confirm="Yes, delete it" question={`Delete ${a.name}? Its users can no longer sign in through it, and this cannot be undone.`} onConfirm={() => remove.mutate()}>Delete this application</ConfirmButton>
        <ErrorText error={remove.error} />
      </Section>
    </main>
  );
}
