import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { auditEntryHash } from '../../src/audit/chain.js';
import { recordAuditNow } from '../../src/audit/record.js';
import { toChainedEntry } from '../../src/audit/verify.js';
import type { TestUser } from '../helpers/factories.js';
import { claimLock, createVerifiedUser, shareLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { assertAllLabelled, ensureConsoleBuilt, launchChromium, openTab, shoot, signInAs, type Tab } from './browser.js';

/**
 * The audit pages check their entries in the browser against the service's signed checkpoint
 * (console/src/verify.ts). Checkpoints are signed at most once an hour here, and by the test when
 * it wants one, so an entry's "not yet in a checkpoint" state can be seen, then its verification;
 * then entries are changed in the database behind the service's back, and the page says so.
 */
ensureConsoleBuilt();

const status = (page: Page) => page.locator('p.verify[role="status"]');
const verdicts = (page: Page) => page.locator('tr[data-verified]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-verified')));

describe('the console: audit entries verified against signed checkpoints', () => {
  const t = useService({ env: { AUDIT_CHECKPOINT_INTERVAL_MS: '3600000' } });
  let browser: Browser;
  let owner: TestUser;
  let member: TestUser;
  let lockId: string;
  let tab: Tab;

  before(async () => {
    browser = await launchChromium({ service: t.service });
    owner = await createVerifiedUser(t);
    member = await createVerifiedUser(t);
    ({ id: lockId } = await claimLock(t, owner, { name: 'Archive' }));
    await shareLock(t, lockId, owner, member.userId, { role: 'USER' });
    await recordAuditNow(t.service.ctx, { lockId, type: 'DOOR_UNLOCK', actorUserId: member.userId });
    // No checkpoint yet: the signer waits an hour. 404 is how the service says so.
    tab = await openTab(browser, [404]);
    await signInAs(tab, t.service.url, owner.email, owner.password);
  });
  after(async () => {
    await tab?.context.close();
    await browser?.close();
  });

  it('shows entries as not yet signed, then verified against the checkpoint once it is signed, live entries too', async () => {
    const { page } = tab;
    await page.goto(`${t.service.url}/console/locks/${lockId}/audit`);
    await status(page).getByText('The service has not signed a checkpoint of its audit log yet. 3 entries are not yet in a signed checkpoint; checked again in a moment.').waitFor();
    assert.deepEqual(await verdicts(page), ['pending', 'pending', 'pending']);
    await page.getByRole('cell', { name: 'not yet signed' }).first().waitFor();

    await t.service.ctx.checkpoints.signNow();
    await status(page).getByText('✓ All 3 entries verified against checkpoint 3, signed by latchkey.test/audit.').waitFor();
    assert.deepEqual(await verdicts(page), ['verified', 'verified', 'verified']);

    // An entry arrives live: not yet signed while the others stay verified; then signed, it verifies
    // (and the browser checks that checkpoint 4 extends the checkpoint 3 it saw: a consistency proof).
    await recordAuditNow(t.service.ctx, { lockId, type: 'DOOR_LOCK', actorUserId: owner.userId, message: 'locked by the test' });
    await page.locator('tr[data-type="DOOR_LOCK"][data-verified="pending"]').waitFor();
    await status(page).getByText('✓ 3 entries verified against checkpoint 3. 1 entry is not yet in a signed checkpoint; checked again in a moment.').waitFor();
    await assertAllLabelled(page);
    await t.service.ctx.checkpoints.signNow();
    await status(page).getByText('✓ All 4 entries verified against checkpoint 4, signed by latchkey.test/audit.').waitFor();
    assert.deepEqual(tab.errors, []);
  });

  it("marks a member's trail on a lock they do not administer as checkable by admins only", async () => {
    const other = await openTab(browser);
    await signInAs(other, t.service.url, member.email, member.password);
    await other.page.getByRole('link', { name: 'Activity' }).click();
    await other.page.locator('tr[data-type="DOOR_UNLOCK"][data-verified="unavailable"]').waitFor();
    await status(other.page).getByText(/on locks you do not administer: only a lock's admins can check its entries\.$/).waitFor();
    assert.ok((await verdicts(other.page)).every((v) => v === 'unavailable'));
    assert.deepEqual(other.errors, []);
    await other.context.close();
  });

  it('says so when the checkpoint is signed by another key than this browser saw, or the log no longer extends what it saw', async () => {
    const { page } = tab;
    const pinned = await page.evaluate('localStorage.getItem("latchkey.console.audit-key")');
    assert.match(String(pinned), /^latchkey\.test\/audit\+[0-9a-f]{8}\+/, 'the key is pinned on first sight');
    await page.evaluate('localStorage.setItem("latchkey.console.audit-key", "latchkey.test/audit+00000000+AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")');
    await page.reload();
    await page.getByRole('alert').getByText(/^✗ The signed audit log does not check out: the log is now signed by another key than the one this browser saw before/).waitFor();
    assert.ok((await verdicts(page)).every((v) => v === 'failed'));

    // The key is right again, but the checkpoint this browser remembers had another root: the log was rewritten.
    await page.evaluate(`localStorage.setItem("latchkey.console.audit-key", ${JSON.stringify(pinned)})`);
    await page.evaluate('localStorage.setItem("latchkey.console.audit-checkpoint", JSON.stringify({ origin: "latchkey.test/audit", size: 2, root: btoa("x".repeat(32)) }))');
    await page.reload();
    await page.getByRole('alert').getByText(/does not extend the one of checkpoint 2 this browser saw before: entries were changed or removed/).waitFor();
    await page.evaluate('localStorage.removeItem("latchkey.console.audit-checkpoint")');
    await page.reload();
    await status(page).getByText(/^✓ All 4 entries verified/).waitFor();
  });

  it('flags an entry changed in the database, and one changed with its hash recomputed', async () => {
    const { page } = tab;
    const db = t.service.ctx.db.kysely;
    const rows = await db.selectFrom('audit_entries').selectAll().where('lock_id', '=', lockId).orderBy('seq').execute();
    const shared = rows.find((r) => r.type === 'LOCK_SHARED')!;
    const unlock = rows.find((r) => r.type === 'DOOR_UNLOCK')!;
    // A plain edit: the content no longer hashes to the stored hash.
    await db.updateTable('audit_entries').set({ message: 'nothing to see here' }).where('id', '=', shared.id).execute();
    // An edit whose hash is recomputed (the chain fields all consistent): its leaf is not in the signed tree.
    // (Hashed in whatever format the row is recorded in, as the verifier reads rows.)
    const forged = toChainedEntry({ ...unlock, actor_user_id: owner.userId })!;
    await db.updateTable('audit_entries').set({ actor_user_id: owner.userId, hash: auditEntryHash(unlock.prev_hash, forged) }).where('id', '=', unlock.id).execute();

    await page.reload();
    await page.getByRole('alert').getByText('✗ 2 entries do not verify against the signed audit log (marked below); the newest: it is not in the log signed by checkpoint 4.').waitFor();
    await page.locator('tr[data-type="LOCK_SHARED"][data-verified="failed"]').getByText('its content does not hash to its recorded hash: it was changed').waitFor();
    await page.locator('tr[data-type="DOOR_UNLOCK"][data-verified="failed"]').getByText('it is not in the log signed by checkpoint 4').waitFor();
    await status(page).getByText('✓ 2 entries verified against checkpoint 4.').waitFor();
    await assertAllLabelled(page);
    await shoot(page, 'audit-tampered');
    assert.deepEqual(tab.errors, []);
  });
});
