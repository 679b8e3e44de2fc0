import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startService, type RunningService } from '../../src/server.js';
import { createApplication } from '../applications/helpers.js';
import { TEST_DB } from '../helpers/database.js';
import { createUser } from '../helpers/factories.js';
import { startTestService, TEST_BASE_URL, type TestService, TEST_SERVICE_OPTIONS } from '../helpers/service.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const local = (url: string) => url.slice(TEST_BASE_URL.length);

/**
 * Two instances on one PostgreSQL database with data directories of their own (they share no
 * disk): a logo uploaded through one is served by the other, and removed with its application.
 */
describe('logos across instances (embedded storage on PostgreSQL)', { skip: TEST_DB !== 'postgres' && 'several instances share PostgreSQL only' }, () => {
  let first: TestService;
  let second: RunningService;
  let secondDir: string;
  before(async () => {
    first = await startTestService({ KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
    secondDir = await mkdtemp(join(tmpdir(), 'latchkey-second-'));
    second = await startService({ ...first.config, port: 0, dataDir: secondDir }, TEST_SERVICE_OPTIONS);
  });
  after(async () => {
    await second?.close();
    await first?.close();
    await rm(secondDir, { recursive: true, force: true });
  });

  it('a logo uploaded through one instance is served by the other, until its application is deleted', async () => {
    const owner = await createUser(first.api);
    const { applicationId } = await createApplication(first.api, owner);
    const { uploadUrl, logoUrl } = (await first.api.post(`/platform/application/${applicationId}/logo`, { token: owner.authToken, body: { contentType: 'image/png' } })).body;
    assert.equal((await fetch(`${first.service.url}${local(uploadUrl)}`, { method: 'PUT', body: PNG, headers: { 'content-type': 'image/png' } })).status, 204);
    const served = await fetch(`${second.url}${local(logoUrl)}`);
    assert.equal(served.status, 200);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), PNG);

    assert.equal((await first.api.delete(`/platform/application/${applicationId}`, { token: owner.authToken })).status, 204);
    assert.equal((await fetch(`${second.url}${local(logoUrl)}`)).status, 404);
  });
});
