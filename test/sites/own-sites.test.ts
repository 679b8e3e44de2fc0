import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createUser } from '../helpers/factories.js';
import { claimLock, createSite, shareLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';

/** Sites made, renamed and filled by lock administrators through the API (issue 29), beside the operators' sites. */
describe('sites of their own', () => {
  const t = useService();

  it('lets a lock administrator make a site, rename it and put their locks in it and out; others see it as nothing', async () => {
    const manager = await createUser(t.api);
    const [front, back] = [await claimLock(t, manager, { name: 'Front' }), await claimLock(t, manager, { name: 'Back' })];
    const made = await t.api.post('/site', { token: manager.authToken, body: { name: 'North building', colour: '#336699' } });
    assert.equal(made.status, 201, made.text);
    const siteId = made.body.id as string;
    assert.deepEqual((await t.api.get('/site/mine', { token: manager.authToken })).body.map((s: { id: string }) => s.id), [siteId]);
    assert.equal((await t.api.put(`/site/${siteId}`, { token: manager.authToken, body: { name: 'North wing' } })).status, 204);

    for (const lock of [front, back]) assert.equal((await t.api.put(`/site/${siteId}/device/${lock.id}`, { token: manager.authToken })).status, 204);
    const listed = (await t.api.get('/site', { token: manager.authToken })).body as Array<{ id: string; name: string; colour: string }>;
    assert.deepEqual(listed.map((s) => [s.id, s.name, s.colour]), [[siteId, 'North wing', '#336699']]);
    assert.deepEqual(((await t.api.get(`/site/${siteId}/device`, { token: manager.authToken })).body as Array<{ name: string }>).map((l) => l.name).sort(), ['Back', 'Front']);
    assert.equal((await t.api.delete(`/site/${siteId}/device/${back.id}`, { token: manager.authToken })).status, 204);
    assert.deepEqual(((await t.api.get(`/site/${siteId}/device`, { token: manager.authToken })).body as Array<{ name: string }>).map((l) => l.name), ['Front']);

    // A member of a lock in the site sees the site, but it is not theirs to change; a stranger sees nothing.
    const staff = await createUser(t.api);
    await shareLock(t, front.id, manager, staff.userId);
    assert.equal((await t.api.get('/site', { token: staff.authToken })).body.length, 1);
    assert.equal((await t.api.put(`/site/${siteId}`, { token: staff.authToken, body: { name: 'Mine now' } })).status, 404);
    const stranger = await createUser(t.api);
    const theirs = await claimLock(t, stranger);
    assert.equal((await t.api.put(`/site/${siteId}/device/${theirs.id}`, { token: stranger.authToken })).status, 404);
    assert.equal((await t.api.get('/site/mine', { token: stranger.authToken })).body.length, 0);
  });

  it('refuses a site to someone who administers no lock (403), a lock the owner does not administer (404, 403 as USER), an operator site (404) and bad names (400)', async () => {
    const nobody = await createUser(t.api);
    assert.equal((await t.api.post('/site', { token: nobody.authToken, body: { name: 'Mine' } })).status, 403);

    const manager = await createUser(t.api);
    await claimLock(t, manager);
    const siteId = (await t.api.post('/site', { token: manager.authToken, body: { name: 'East' } })).body.id as string;
    const other = await createUser(t.api);
    const foreign = await claimLock(t, other);
    assert.equal((await t.api.put(`/site/${siteId}/device/${foreign.id}`, { token: manager.authToken })).status, 404);
    await shareLock(t, foreign.id, other, manager.userId, { role: 'USER' });
    assert.equal((await t.api.put(`/site/${siteId}/device/${foreign.id}`, { token: manager.authToken })).status, 403);

    const operators = await createSite(t, { name: 'Operated' });
    assert.equal((await t.api.put(`/site/${operators.id}`, { token: manager.authToken, body: { name: 'Taken' } })).status, 404);
    for (const body of [{ name: '' }, { name: 'x'.repeat(256) }, { name: 'ok', colour: 'red' }]) {
      assert.equal((await t.api.post('/site', { token: manager.authToken, body })).status, 400, JSON.stringify(body));
    }
    assert.equal((await t.api.put(`/site/${siteId}`, { token: manager.authToken, body: { name: '   ' } })).status, 400);
  });
});
