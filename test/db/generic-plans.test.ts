import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { TEST_DB } from '../helpers/database.js';
import { useService } from '../helpers/service.js';

/**
 * Migrations 0251 and 0270: the PL/pgSQL functions on an unlock's path plan their statements once
 * per connection (plan_cache_mode = force_generic_plan), not on every call.
 */
describe('the audit functions\' plans on PostgreSQL', { skip: TEST_DB === 'sqlite' && 'PostgreSQL only' }, () => {
  const t = useService();

  it('keeps audit_append\'s, report_locked\'s and lock_writes\'s generic plans (report_locked_decision runs inside the last two, under theirs)', async () => {
    const { rows } = await sql<{ name: string; config: string[] | null }>`select proname as name, proconfig as config from pg_proc
      where proname in ('audit_append', 'report_locked', 'lock_writes') order by proname`.execute(t.service.ctx.db.kysely);
    assert.deepEqual(rows, [
      { name: 'audit_append', config: ['plan_cache_mode=force_generic_plan'] },
      { name: 'lock_writes', config: ['plan_cache_mode=force_generic_plan', 'lock_timeout=20s'] },
      { name: 'report_locked', config: ['plan_cache_mode=force_generic_plan'] },
    ]);
  });
});
