import type { ApiClient } from './client';
import type {
  Account, Alarms, Application, ApplicationChanges, Body, CertificateChain, CheckpointAnswer, CheckpointKeyAnswer, CreatedCode, Invitee, KeypadCode, Lock, LockChanges, LockLogEntry,
  Member, NewApplication, NewCode, NewWebhook, ProofPage, Reply, SendCode, Session, Site, UserLogEntry, Webhook, WebhookChanges,
} from './types';

/** Each endpoint the console calls, with the service's own types for what it sends and gets. */

const at = encodeURIComponent;
const device = (lockId: string, rest = '') => `/device/${at(lockId)}${rest}`;
const application = (id: string, rest = '') => `/platform/application/${at(id)}${rest}`;
/** `?start=&end=` (Unix seconds) for the filters that are set. */
const period = (start: number | null, end: number | null) => {
  const query = new URLSearchParams();
  if (start !== null) query.set('start', String(start));
  if (end !== null) query.set('end', String(end));
  const text = query.toString();
  return text ? `?${text}` : '';
};

// ——— Session and account
export async function signIn(api: ApiClient, body: Body<'/auth/token', 'post'>): Promise<void> {
  const tokens = await api.request<Session>('POST', '/auth/token', { body, auth: false });
  api.setSession({ authToken: tokens.authToken, refreshToken: tokens.refreshToken });
}
/** Registers (v3); an invitation to this address is taken over (its shares wait until the email is verified). */
export async function register(api: ApiClient, body: Body<'/auth/register', 'post'>): Promise<void> {
  const tokens = await api.request<Reply<'/auth/register', 'post'>>('POST', '/auth/register?acceptInvite=true', { body, auth: false });
  api.setSession({ authToken: tokens.authToken, refreshToken: tokens.refreshToken });
}
/** A visitor's emailed link (its secret) and this browser's new key: the session of the visitor, whose key is then certified without a code. */
export async function takeVisit(api: ApiClient, body: Body<'/share/visit', 'post'>): Promise<string> {
  const visit = await api.request<Reply<'/share/visit', 'post'>>('POST', '/share/visit', { body, auth: false });
  api.setSession({ authToken: visit.authToken, refreshToken: visit.refreshToken });
  return visit.userId;
}
export async function signOut(api: ApiClient): Promise<void> {
  try {
    if (api.session()) await api.request('POST', '/auth/token/destroy');
  } finally {
    api.setSession(null);
  }
}
export const getAccount = (api: ApiClient) => api.request<Account>('GET', '/account');
export const updateAccount = (api: ApiClient, body: Body<'/account', 'post'>) => api.request('POST', '/account', { body });
export const changePassword = (api: ApiClient, body: Body<'/account/password', 'post'>) => api.request('POST', '/account/password', { body });
export const resendVerification = (api: ApiClient) => api.request('POST', '/account/email/reverify');
export const verifyEmail = (api: ApiClient, code: string) => api.request('PUT', `/account/email/verify?code=${at(code)}`);
export const deleteAccount = (api: ApiClient) => api.request('DELETE', '/account');
export const requestPasswordReset = (api: ApiClient, body: Body<'/account/password/reset/initialize', 'post'>) =>
  api.request('POST', '/account/password/reset/initialize', { body, auth: false });
export const resetPassword = (api: ApiClient, body: Body<'/account/password/reset/verify', 'post'>) =>
  api.request('POST', '/account/password/reset/verify', { body, auth: false });

// ——— This browser's certificate and signed operations
export const requestCertificate = (api: ApiClient, body: Body<'/auth/certificate', 'post'>) => api.request<CertificateChain>('POST', '/auth/certificate', { body });
export const sendCertificateCode = (api: ApiClient, method: 'EMAIL' | 'SMS' | 'TELEPHONE' | 'WHATSAPP', body: Body<'/auth/certificate/verify', 'post'>) =>
  api.request('POST', `/auth/certificate/verify?method=${method}`, { body });
export const checkCertificateCode = (api: ApiClient, body: Body<'/auth/certificate/check', 'post'>) =>
  api.request<Reply<'/auth/certificate/check', 'post'>>('POST', '/auth/certificate/check', { body });
/** POST /device/{id}/execute with a signed operation (a compact JWS): the lock's confirmation. */
export const executeSigned = (api: ApiClient, lockId: string, token: string) => api.request<Reply<'/device/{lockId}/execute', 'post'>>('POST', device(lockId, '/execute'), { raw: token });

// ——— Locks, sites, members, tiles
export const listLocks = (api: ApiClient) => api.request<Lock[]>('GET', '/device');
export const getLock = (api: ApiClient, lockId: string) => api.request<Lock>('GET', device(lockId));
export const claimLock = (api: ApiClient, body: Body<'/device', 'post'>) => api.request<Reply<'/device', 'post'>>('POST', '/device', { body });
export const updateLock = (api: ApiClient, lockId: string, body: LockChanges) => api.request('PUT', device(lockId), { body });
export const listSites = (api: ApiClient) => api.request<Site[]>('GET', '/site');
export const listOwnSites = (api: ApiClient) => api.request<Site[]>('GET', '/site/mine');
export const createSite = (api: ApiClient, body: Body<'/site', 'post'>) => api.request<Site>('POST', '/site', { body });
export const updateSite = (api: ApiClient, siteId: string, body: Body<'/site/{siteId}', 'put'>) => api.request('PUT', `/site/${at(siteId)}`, { body });
/** Puts a lock in a site of the caller's (`inSite`), or takes it out. */
export const placeLock = (api: ApiClient, siteId: string, lockId: string, inSite: boolean) => api.request(inSite ? 'PUT' : 'DELETE', `/site/${at(siteId)}/device/${at(lockId)}`);
export const listSiteLocks = (api: ApiClient, siteId: string) => api.request<Reply<'/site/{siteId}/device', 'get'>>('GET', `/site/${at(siteId)}/device`);
export const listMembers = (api: ApiClient, lockId: string) => api.request<Member[]>('GET', device(lockId, '/users'));
/** The person an email names (invited to `lockId` by email when they have no account): whom ADD_USER shares with. */
export const findInvitee = (api: ApiClient, email: string, lockId: string) => api.request<Invitee>('GET', `/share/invite/${at(email)}?device=${at(lockId)}`);
/** How many shares wait for the signed-in user's email to be verified. */
export const waitingShares = (api: ApiClient) => api.request<Reply<'/share/waiting', 'get'>>('GET', '/share/waiting');
export const linkTile = (api: ApiClient, lockId: string, tileId: string) => api.request('PUT', device(lockId, `/tile/${at(tileId)}`));
export const unlinkTile = (api: ApiClient, lockId: string, tileId: string) => api.request('DELETE', device(lockId, `/tile/${at(tileId)}`));

// ——— Alarms (the alarms pages' other endpoints are in alarm-endpoints.ts, loaded with them)
/** Open alarms and history of every lock the caller administers, of one site's, or of one lock. */
export const listAlarms = (api: ApiClient, scope: { siteId?: string; lockId?: string } = {}) =>
  api.request<Alarms>('GET', scope.lockId ? device(scope.lockId, '/alarms') : scope.siteId ? `/site/${at(scope.siteId)}/alarms` : '/alarms');

// ——— Audit
export const lockLog = (api: ApiClient, lockId: string, start: number | null, end: number | null) => api.request<LockLogEntry[]>('GET', device(lockId, `/log${period(start, end)}`));
export const userLog = (api: ApiClient, userId: string, start: number | null, end: number | null) => api.request<UserLogEntry[]>('GET', `/user/${at(userId)}/log${period(start, end)}`);
export const latestCheckpoint = (api: ApiClient) => api.request<CheckpointAnswer>('GET', '/audit/checkpoint');
export const checkpointKey = (api: ApiClient) => api.request<CheckpointKeyAnswer>('GET', '/audit/checkpoint/key');
export const consistencyProof = (api: ApiClient, from: number, to: number) =>
  api.request<Reply<'/audit/proof/consistency', 'get'>>('GET', `/audit/proof/consistency?from=${from}&to=${to}`);
export const lockLogProofs = (api: ApiClient, lockId: string, query: URLSearchParams) => api.request<ProofPage>('GET', device(lockId, `/log/proof?${query}`));

// ——— Applications
export const listApplications = (api: ApiClient) => api.request<Application[]>('GET', '/platform/application');
export const createApplication = (api: ApiClient, body: NewApplication) => api.request<Reply<'/platform/application', 'post'>>('POST', '/platform/application', { body });
export const getApplication = (api: ApiClient, id: string) => api.request<Application>('GET', application(id));
export const updateApplication = (api: ApiClient, id: string, body: ApplicationChanges) => api.request('POST', application(id), { body });
export const deleteApplication = (api: ApiClient, id: string) => api.request('DELETE', application(id));
export const logoUpload = (api: ApiClient, id: string, body: Body<'/platform/application/{applicationId}/logo', 'post'>) =>
  api.request<Reply<'/platform/application/{applicationId}/logo', 'post'>>('POST', application(id, '/logo'), { body });
export const addAuthKey = (api: ApiClient, id: string, jwk: unknown) => api.request('POST', application(id, '/auth/key'), { body: jwk });
export const removeAuthKey = (api: ApiClient, id: string, kid: string) => api.request('DELETE', application(id, `/auth/key/${at(kid)}`));
/** The application's issuers (`/auth/issuer`) or CORS origins (`/cors`): URLs added and removed one by one. */
export type UrlListName = 'auth/issuer' | 'cors';
export const addUrl = (api: ApiClient, id: string, list: UrlListName, url: string) => api.request('POST', application(id, `/${list}`), { body: { url } });
export const removeUrl = (api: ApiClient, id: string, list: UrlListName, url: string) => api.request('DELETE', application(id, `/${list}`), { body: { url } });

// ——— Webhooks (docs/webhooks.md)
const webhook = (id: string, rest = '') => `/webhook/${at(id)}${rest}`;
export const listWebhooks = (api: ApiClient) => api.request<Reply<'/webhook', 'get'>>('GET', '/webhook');
/** Answers the endpoint with its secret, shown this once. */
export const createWebhook = (api: ApiClient, body: NewWebhook) => api.request<Reply<'/webhook', 'post'>>('POST', '/webhook', { body });
export const updateWebhook = (api: ApiClient, id: string, body: WebhookChanges) => api.request<Webhook>('PUT', webhook(id), { body });
export const deleteWebhook = (api: ApiClient, id: string) => api.request('DELETE', webhook(id));
export const rotateWebhookSecret = (api: ApiClient, id: string) => api.request<Reply<'/webhook/{webhookId}/secret', 'post'>>('POST', webhook(id, '/secret'));
export const sendTestWebhook = (api: ApiClient, id: string) => api.request('POST', webhook(id, '/test'));
export const listWebhookDeliveries = (api: ApiClient, id: string) => api.request<Reply<'/webhook/{webhookId}/deliveries', 'get'>>('GET', webhook(id, '/deliveries'));
export const redeliverWebhook = (api: ApiClient, id: string, deliveryId: string) => api.request('POST', webhook(id, `/deliveries/${at(deliveryId)}/redeliver`));

// ——— Keypad codes (docs/keypad-codes.md): each grant or removal a signed ADD_CODE / REMOVE_CODE per lock
const code = (id: string, rest = '') => `/lock-codes/${at(id)}${rest}`;
/** The codes of one lock the caller administers (never their digits). */
export const listCodes = (api: ApiClient, lockId: string) => api.request<KeypadCode[]>('GET', `/lock-codes?lockId=${at(lockId)}`);
/** Answers with the generated digits, shown this once. */
export const createCode = (api: ApiClient, body: NewCode) => api.request<CreatedCode>('POST', '/lock-codes', { body });
export const changeCode = (api: ApiClient, id: string, tokens: string[]) => api.request<KeypadCode>('PUT', code(id), { body: { tokens } });
export const revokeCode = (api: ApiClient, id: string, tokens: string[]) => api.request<KeypadCode>('POST', code(id, '/revoke'), { body: { tokens } });
/** Emails a new code to its holder (by its creator, with the digits they hold). */
export const sendCode = (api: ApiClient, id: string, body: SendCode) => api.request('POST', code(id, '/send'), { body });
