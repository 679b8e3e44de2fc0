import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { api } from '../api';
import { navigate } from '../router';
import { ErrorText, Field, Form, Link, Notice, Section } from '../ui';
import { useAction } from './auth';

interface EmailPreferences { senderEmail?: string; senderName?: string; primaryColour?: string; secondaryColour?: string; callToAction?: { actionTarget: string; headline: string; actionText: string } }
interface Application {
  applicationId: string; name: string; companyName: string; mailingAddress: string; privacyPolicy?: string; supportContact?: string; appLink?: string;
  emailPreferences?: EmailPreferences; logoUrl?: string; owners: string[]; authKeys: Record<string, Record<string, unknown>>; authDomains: string[]; corsDomains: string[];
}

const path = (id: string, rest = '') => `/platform/application/${encodeURIComponent(id)}${rest}`;

export function AppsPage() {
  const client = useQueryClient();
  const apps = useQuery({ queryKey: ['apps'], queryFn: () => api.get<Application[]>('/platform/application') });
  const [name, setName] = useState('');
  const [company, setCompany] = useState('');
  const [address, setAddress] = useState('');
  const { error, busy, run } = useAction();
  return (
    <main>
      <h1>Developers</h1>
      <Section title="Your applications">
        <ErrorText error={apps.error} />
        {apps.data?.length === 0 && <p>No applications yet.</p>}
        <ul>{(apps.data ?? []).map((a) => <li key={a.applicationId}><Link to={`/apps/${a.applicationId}`}>{a.name}</Link> <span class="muted">{a.companyName}</span></li>)}</ul>
      </Section>
      <Form label="Create an application" onSubmit={() => run(async () => {
        const made = await api.post<Application>('/platform/application', { name, companyName: company, mailingAddress: address });
        client.setQueryData(['app', made.applicationId], made);
        await client.invalidateQueries({ queryKey: ['apps'] });
        navigate(`/apps/${made.applicationId}`);
      })}>
        <h2>Create an application</h2>
        <Field label="Application name" required value={name} onValue={setName} />
        <Field label="Company name" required value={company} onValue={setCompany} />
        <Field label="Mailing address" type="email" required value={address} onValue={setAddress} hint="Where the service writes to you about this application." />
        <button type="submit" disabled={busy}>Create application</button>
        <ErrorText error={error} />
      </Form>
    </main>
  );
}

/** A list of strings added and removed one by one (issuers, CORS origins). */
function UrlList({ title, itemLabel, items, add, remove }: { title: string; itemLabel: string; items: string[]; add: (url: string) => Promise<unknown>; remove: (url: string) => Promise<unknown> }) {
  const [url, setUrl] = useState('');
  const { error, busy, run } = useAction();
  return (
    <Section title={title}>
      <ul>{items.map((item) => <li key={item}>{item} <button type="button" class="secondary" onClick={() => run(async () => void (await remove(item)))} aria-label={`Remove ${item}`}>Remove</button></li>)}</ul>
      <Form label={`Add to ${title}`} class="inline-form" onSubmit={() => run(async () => { await add(url.trim()); setUrl(''); })}>
        <Field label={`New ${itemLabel}`} type="url" required value={url} onValue={setUrl} />
        <button type="submit" disabled={busy}>Add {itemLabel}</button>
      </Form>
      <ErrorText error={error} />
    </Section>
  );
}

function Branding({ app, onSaved }: { app: Application; onSaved: () => Promise<unknown> }) {
  const prefs = app.emailPreferences ?? {};
  const [senderName, setSenderName] = useState(prefs.senderName ?? app.name);
  const [senderEmail, setSenderEmail] = useState(prefs.senderEmail ?? '');
  const [primary, setPrimary] = useState(prefs.primaryColour ?? '#1f4e79');
  const [secondary, setSecondary] = useState(prefs.secondaryColour ?? '#f2f5f8');
  const [support, setSupport] = useState(app.supportContact ?? '');
  const [saved, setSaved] = useState('');
  const { error, busy, run } = useAction();
  const logo = useAction();
  return (
    <Section title="Branding and email">
      <Form label="Branding" class="inline-form" onSubmit={() => run(async () => {
        await api.post(path(app.applicationId), { supportContact: support || null, emailPreferences: { senderName, ...(senderEmail ? { senderEmail } : {}), primaryColour: primary, secondaryColour: secondary } });
        setSaved('Branding saved.');
        await onSaved();
      })}>
        <Field label="Sender name" value={senderName} onValue={setSenderName} />
        <Field label="Sender email" type="email" value={senderEmail} onValue={setSenderEmail} />
        <Field label="Primary colour" type="color" value={primary} onValue={setPrimary} />
        <Field label="Secondary colour" type="color" value={secondary} onValue={setSecondary} />
        <Field label="Support contact" value={support} onValue={setSupport} />
        <button type="submit" disabled={busy}>Save branding</button>
      </Form>
      {saved && <Notice>{saved}</Notice>}
      <ErrorText error={error} />
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
          if (!file) return;
          void logo.run(async () => {
            const target = await api.post<{ uploadUrl: string; logoUrl: string }>(path(app.applicationId, '/logo'), { contentType: file.type });
            const put = await fetch(target.uploadUrl, { method: 'PUT', headers: { 'content-type': file.type }, body: file });
            if (!put.ok) throw new Error(`The logo upload was refused (${put.status})`);
            await api.post(path(app.applicationId), { logoUrl: target.logoUrl });
            setSaved('Logo uploaded.');
            await onSaved();
          });
        }} />
      </div>
      <ErrorText error={logo.error} />
    </Section>
  );
}

function AuthKeys({ app, onSaved }: { app: Application; onSaved: () => Promise<unknown> }) {
  const [jwk, setJwk] = useState('');
  const { error, busy, run } = useAction();
  const kids = Object.keys(app.authKeys ?? {});
  return (
    <Section title="Auth keys">
      <ul>{kids.map((kid) => <li key={kid}><code>{kid}</code> <button type="button" class="secondary" aria-label={`Remove key ${kid}`} onClick={() => run(async () => { await api.delete(path(app.applicationId, `/auth/key/${encodeURIComponent(kid)}`)); await onSaved(); })}>Remove</button></li>)}</ul>
      <Form label="Add an auth key" class="inline-form" onSubmit={() => run(async () => {
        let key: unknown;
        try { key = JSON.parse(jwk); } catch { throw new Error('The key must be a JSON Web Key (JSON).'); }
        await api.post(path(app.applicationId, '/auth/key'), key);
        setJwk('');
        await onSaved();
      })}>
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
  const client = useQueryClient();
  const app = useQuery({ queryKey: ['app', id], queryFn: () => api.get<Application>(path(id)) });
  const refresh = () => client.invalidateQueries({ queryKey: ['app', id] });
  const remove = useAction();
  if (app.error) return <main><h1>Application</h1><ErrorText error={app.error} /></main>;
  if (!app.data) return <main><p role="status">Loading…</p></main>;
  const a = app.data;
  return (
    <main>
      <p><Link to="/apps">← Applications</Link></p>
      <h1>{a.name}</h1>
      <p class="muted">{a.companyName} · id <code>{a.applicationId}</code></p>
      <Branding app={a} onSaved={refresh} />
      <AuthKeys app={a} onSaved={refresh} />
      <UrlList title="Issuers" itemLabel="issuer" items={a.authDomains} add={async (url) => { await api.post(path(id, '/auth/issuer'), { url }); await refresh(); }} remove={async (url) => { await api.delete(path(id, '/auth/issuer'), { url }); await refresh(); }} />
      <UrlList title="CORS origins" itemLabel="CORS origin" items={a.corsDomains} add={async (url) => { await api.post(path(id, '/cors'), { url }); await refresh(); }} remove={async (url) => { await api.delete(path(id, '/cors'), { url }); await refresh(); }} />
      <Section title="Owners">
        <ul>{a.owners.map((owner) => <li key={owner}><code>{owner}</code></li>)}</ul>
      </Section>
      <Section title="Delete">
        <button type="button" class="danger" disabled={remove.busy} onClick={() => remove.run(async () => { await api.delete(path(id)); await client.invalidateQueries({ queryKey: ['apps'] }); navigate('/apps'); })}>Delete this application</button>
        <ErrorText error={remove.error} />
      </Section>
    </main>
  );
}
