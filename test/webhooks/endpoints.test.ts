import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApplication } from '../applications/helpers.js';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock, createSite, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

/** Issue 32 point 1: webhook endpoints, managed by a lock administrator or an application's owners. */
describe('webhook endpoints', () => {
  let t: TestService;
  let owner: TestUser;
  let stranger: TestUser;

  before(async () => {
    t = await startTestService({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'false' });
    owner = await createUser(t.api);
    stranger = await createUser(t.api);
  });
  after(async () => {
    await t.close();
  });

  const create = (user: TestUser, body: Record<string, unknown>) => t.api.post('/webhook', { token: user.authToken, body });

  it('shows the whsec_ secret once, lists, changes, rotates and deletes; a stranger sees nothing', async () => {
    const lock = await claimLock(t, owner);
    const created = await create(owner, { url: 'https://hooks.example.com/latchkey', eventTypes: ['door.unlocked', 'access.refused'], lockIds: [lock.id.toUpperCase()], description: 'front door' });
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(created.body.lockIds, [lock.id]);
    assert.equal(created.body.ownerUserId, owner.userId);
    assert.equal(created.body.enabled, true);
    const id = created.body.id as string;

    const listed = await t.api.get('/webhook', { token: owner.authToken });
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.endpoints.map((e: { id: string }) => e.id), [id]);
    assert.ok(!listed.text.includes(created.body.secret), 'the secret is shown only once');
    assert.ok(!('secret' in (await t.api.get(`/webhook/${id}`, { token: owner.authToken })).body));

    const changed = await t.api.put(`/webhook/${id}`, { token: owner.authToken, body: { eventTypes: null, enabled: false, description: null } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.eventTypes, null);
    assert.equal(changed.body.enabled, false);
    assert.equal(changed.body.url, 'https://hooks.example.com/latchkey');

    const rotated = await t.api.post(`/webhook/${id}/secret`, { token: owner.authToken });
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.secret, created.body.secret);
    assert.ok(rotated.body.previousSecretValidUntil > Date.now() / 1000 + 3600);
    assert.equal((await t.api.get(`/webhook/${id}`, { token: owner.authToken })).body.previousSecretValidUntil, rotated.body.previousSecretValidUntil);

    for (const [method, path] of [['get', `/webhook/${id}`], ['put', `/webhook/${id}`], ['delete', `/webhook/${id}`], ['post', `/webhook/${id}/secret`], ['get', `/webhook/${id}/deliveries`], ['post', `/webhook/${id}/test`]] as const) {
      const res = await t.api.request(method.toUpperCase(), path, { token: stranger.authToken, ...(method === 'put' ? { body: {} } : {}) });
      assert.equal(res.status, 404, `${method} ${path}`);
    }
    assert.deepEqual((await t.api.get('/webhook', { token: stranger.authToken })).body.endpoints, []);
    assert.equal((await t.api.get('/webhook/not-an-id', { token: owner.authToken })).status, 404);

    assert.equal((await t.api.delete(`/webhook/${id}`, { token: owner.authToken })).status, 204);
    assert.equal((await t.api.get(`/webhook/${id}`, { token: owner.authToken })).status, 404);
  });

  it('filters only on locks and sites in scope: a lock the caller does not administer is a 404', async () => {
    const mine = await claimLock(t, owner);
    const theirs = await claimLock(t, stranger);
    assert.equal((await create(owner, { url: 'https://hooks.example.com/a', lockIds: [theirs.id] })).status, 404);
    assert.equal((await create(owner, { url: 'https://hooks.example.com/a', lockIds: ['nope'] })).status, 404);
    // A USER of a lock does not administer it.
    await shareLock(t, theirs.id, stranger, owner.userId);
    assert.equal((await create(owner, { url: 'https://hooks.example.com/a', lockIds: [theirs.id] })).status, 404);
    const site = await createSite(t);
    assert.equal((await create(owner, { url: 'https://hooks.example.com/a', siteIds: [site.id] })).status, 404);
    const ownSite = await t.api.post('/site', { token: owner.authToken, body: { name: 'Office' } });
    assert.equal(ownSite.status, 201, ownSite.text);
    const ok = await create(owner, { url: 'https://hooks.example.com/a', lockIds: [mine.id], siteIds: [ownSite.body.id] });
    assert.equal(ok.status, 201, ok.text);
    assert.equal((await t.api.put(`/webhook/${ok.body.id}`, { token: owner.authToken, body: { lockIds: [theirs.id] } })).status, 404);
  });

  it('refuses URLs that are not http(s), carry credentials or name a private address (unless the operator allows them)', async () => {
    for (const url of ['ftp://hooks.example.com/x', 'https://user:pw@hooks.example.com/x', 'http://127.0.0.1:9/x', 'http://[::1]/x', 'http://169.254.169.254/latest', 'http://10.1.2.3/x']) {
      const res = await create(owner, { url });
      assert.equal(res.status, 400, url);
    }
    assert.equal((await create(owner, { url: 'https://hooks.example.com/x', eventTypes: ['door.exploded'] })).status, 400);
  });

  it('refuses, on each attempt, a name that resolves to a loopback address: nothing reaches the receiver', async () => {
    const receiver = await startWebhookReceiver();
    try {
      // A name, not a literal address: only resolving it shows where it points.
      const created = await create(owner, { url: `http://localhost:${receiver.port}/hook` });
      assert.equal(created.status, 201, created.text);
      assert.equal((await t.api.post(`/webhook/${created.body.id}/test`, { token: owner.authToken })).status, 202);
      const attempt = await eventually(async () => {
        const log = await t.api.get(`/webhook/${created.body.id}/deliveries`, { token: owner.authToken });
        return log.body.deliveries[0]?.log[0];
      }, 'an attempt logged');
      assert.equal(attempt.status, null);
      assert.match(attempt.error, /^refused: localhost resolves to (127\.0\.0\.1|::1), which is not public$/);
      assert.equal(receiver.all.length, 0);
    } finally {
      await receiver.stop();
    }
  });

  it("lets an application's owners manage its endpoints, and nobody else", async () => {
    const application = await createApplication(t.api, owner);
    const created = await create(owner, { url: 'https://hooks.example.com/app', applicationId: application.applicationId });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.applicationId, application.applicationId);
    assert.equal(created.body.ownerUserId, null);
    assert.equal((await create(stranger, { url: 'https://hooks.example.com/app', applicationId: application.applicationId })).status, 404);
    assert.equal((await t.api.get(`/webhook/${created.body.id}`, { token: stranger.authToken })).status, 404);
    assert.ok((await t.api.get('/webhook', { token: owner.authToken })).body.endpoints.some((e: { id: string }) => e.id === created.body.id));
  });

  it('describes every event in the OpenAPI document\'s webhooks section', async () => {
    const doc = await t.api.get('/openapi.json');
    assert.equal(doc.status, 200);
    const webhooks = doc.body.webhooks as Record<string, { post: { requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> } } }>;
    for (const type of ['door.unlocked', 'door.locked', 'door.opened', 'door.closed', 'access.refused', 'access.shared', 'access.revoked', 'member.promoted', 'member.demoted', 'lock.online', 'lock.offline', 'alarm.raised', 'alarm.cleared', 'webhook.test']) {
      const schema = webhooks[type]?.post.requestBody.content['application/json']?.schema;
      assert.ok(schema, type);
      assert.deepEqual(Object.keys(schema.properties).sort(), ['data', 'timestamp', 'type']);
    }
    assert.ok(doc.body.paths['/webhook/{webhookId}/deliveries']);
  });
});
