import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.js';

/**
 * PostgreSQL only (issue 33 point 3, fourth step): a state report's `locked` recorded by one call,
 * in autocommit, where src/lock-link/reports.ts ran a transaction of four round trips (BEGIN, the
 * read that locks the row and stores `locked`, audit_append, COMMIT) with reportLocked's decisions
 * (src/locks/command-life.ts) in TypeScript between them. The same decisions here, for a report
 * whose other values the row holds already; anything else is answered 'fallback' before anything
 * is written, and the caller runs the transaction as before:
 *
 * - unless reports are spread over instances (`p_report_ts` null), the row as committed, without a
 *   lock: holding all the report says, 'unchanged' (no write, no transaction id: what reports.ts's
 *   holdsAlready read decided in a round trip of its own);
 * - the row, locked, unless unknown or decommissioned ('unknown');
 * - `p_report_ts` (reports spread, the lock's time of the report): 'overtaken' where
 *   claimReportTime would refuse it (src/locks/state.ts; `p_overtaken_within` its window), else
 *   claimed, but only once the report is this call's. After a 'fallback' the transaction claims
 *   it, under the row lock with the changes it applies, so an older report is never applied after
 *   a newer one and a report whose transaction fails claims nothing. A claim committed here first
 *   would be either trusted by the transaction (an older report applied over a newer one recorded
 *   in between) or made again (for nothing, and left standing should the transaction fail). Not
 *   claiming does not stop a later report recorded between this call and the transaction from
 *   overtaking this one: what only this one carried (a door opening the later report omits) is
 *   lost, as it already could be between instances, in a window this round trip makes wider;
 * - a health value, door or lockdown the report carries (non-null) and the row does not hold
 *   (checked on either read): 'fallback' (their stores, audits and alarms stay in TypeScript);
 * - a live late marker asking for this state: 'fallback' (audited with the command's user);
 * - `locked` as the row holds it: 'unchanged';
 * - a live marker asking for this state: stored, not audited ('stored': its confirmation audits it);
 * - stored; audited (audit_append, migration 0230: the entry's fields and preimage are the
 *   caller's, an unattributed DOOR_LOCK / DOOR_UNLOCK) unless the row's `locked` was unknown
 *   or the move is an operation the lock reports (`p_by_operation`): 'audited' or 'stored'.
 *
 * The lock row's lock is taken before audit_append takes the tree head's, the order of every
 * audit writer. A new function: the previous release's calls are left as they were. These are
 * reportLocked's decisions made a second time: keep the two in step
 * (test/lock-link/report-decisions.test.ts runs the same table of cases on both engines).
 */
export function reportLockedMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      await sql`
        create function report_locked(
          p_lock_id text, p_locked integer, p_now double precision, p_report_ts double precision, p_overtaken_within double precision,
          p_battery integer, p_jammed integer, p_tamper integer, p_door_open integer, p_lockdown text, p_by_operation boolean,
          p_id text, p_timestamp double precision, p_type text, p_message text, p_hash_version integer, p_preimage text[], p_outbox boolean)
        returns table (outcome text, seq bigint, hash text, prev_hash text, actor_email text, actor_display_name text,
          subject_email text, subject_display_name text, outboxed boolean)
        language plpgsql volatile as $fn$
        declare
          v_row record;
          v_pass integer;
        begin
          -- Pass 1, as committed, no row lock (not with reports spread: each claims its time): a report
          -- of what the row holds writes nothing (reports.ts's holdsAlready); one of something else
          -- than the bolt is the transaction's. Pass 2: the row locked, decided for good.
          for v_pass in (case when p_report_ts is null then 1 else 2 end)..2 loop
            if v_pass = 1 then
              select l.locked, l.battery, l.jammed, l.tamper, l.door_open, l.reported_lockdown
                into v_row from locks as l where l.id = p_lock_id;
              if not found then continue; end if;
            else
              select l.locked, l.pending_target_locked, l.pending_until, l.pending_command_id, l.pending_late, l.battery, l.jammed,
                  l.tamper, l.door_open, l.reported_lockdown, l.report_ts
                into v_row from locks as l where l.id = p_lock_id and l.decommissioned_at is null for update;
              if not found then outcome := 'unknown'; return next; return; end if;
              -- claimReportTime's condition, negated: a later report within the window is recorded.
              if p_report_ts is not null and v_row.report_ts > p_report_ts and v_row.report_ts <= p_report_ts + p_overtaken_within then
                outcome := 'overtaken'; return next; return;
              end if;
            end if;
            if (p_battery is not null and v_row.battery is distinct from p_battery)
                or (p_jammed is not null and v_row.jammed is distinct from p_jammed)
                or (p_tamper is not null and v_row.tamper is distinct from p_tamper)
                or (p_door_open is not null and v_row.door_open is distinct from p_door_open)
                or (p_lockdown is not null and v_row.reported_lockdown is distinct from p_lockdown) then
              outcome := 'fallback'; return next; return;
            end if;
            if v_pass = 1 and v_row.locked is not distinct from p_locked then outcome := 'unchanged'; return next; return; end if;
          end loop;
          -- The row locked; the report's other values it holds.
          if v_row.locked is distinct from p_locked and v_row.pending_target_locked = p_locked and v_row.pending_until > p_now
              and v_row.pending_late = 1 and v_row.pending_command_id is not null then
            outcome := 'fallback'; return next; return;
          end if;
          if p_report_ts is not null then update locks as l set report_ts = p_report_ts where l.id = p_lock_id; end if;
          if v_row.locked is not distinct from p_locked then outcome := 'unchanged'; return next; return; end if;
          update locks as l set locked = p_locked, last_operation = p_now, updated = p_now where l.id = p_lock_id;
          if v_row.locked is null or p_by_operation or (v_row.pending_target_locked = p_locked and v_row.pending_until > p_now) then
            outcome := 'stored'; return next; return;
          end if;
          select a.seq, a.hash, a.prev_hash, a.actor_email, a.actor_display_name, a.subject_email, a.subject_display_name, a.outboxed
            into seq, hash, prev_hash, actor_email, actor_display_name, subject_email, subject_display_name, outboxed
            from audit_append(p_lock_id, null, null, p_id, p_timestamp, p_type, null, null, null, 0, p_message, null,
              p_hash_version, p_preimage, p_outbox) as a;
          outcome := 'audited';
          return next;
        end
        $fn$`.execute(db);
    },
  };
}
