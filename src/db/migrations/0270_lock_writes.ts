import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.js';

/**
 * PostgreSQL only (issue 33 point 3, fifth step): the unlock path's writes of many unlocks in one
 * statement and one commit, as SQLite's group commit shares one (src/locks/lock-writes.ts gathers
 * them; docs/decisions.md, "Group commit by statement on PostgreSQL"). Appending writers take
 * turns on the tree head's row lock, and a dozen backends queueing for it cost PostgreSQL twice
 * the CPU of the same writes made one after another (docs/scaling.md, "Fifth step").
 *
 * - report_locked_decision: 0250's report_locked without its append (answers 'append' where
 *   report_locked appended and answered 'audited'); report_locked is now that and audit_append, so
 *   the decisions are written once. Same arguments as before: an instance of the previous release
 *   calls report_locked as it did. No plan setting of its own: it runs inside report_locked and
 *   lock_writes, under theirs.
 * - lock_writes(items json): a JSON array of lock_write_item, each
 *   - 'begin': a command's token's replay key used and the row's marker (answers 'begun'), or
 *     'reused' where the key was used already, nothing written;
 *   - 'confirm': a command's confirmed state stored where the row held another, and the entry
 *     appended (answers 'confirmed');
 *   - 'report': a state report, what report_locked takes (answers report_locked's outcomes).
 *   First every item's lock row is decided and written, in the order of the lock's id (and, for
 *   one lock, of the items), a beginning's replay key after its row; then every entry is appended
 *   in that order. So every row lock is taken before the tree head's (the order of every audit
 *   writer), a key after its lock's row (the order of every writer of keys: the previous
 *   release's begin, whose unreferenced insert runs after its update, a LAN operation's report, a
 *   keypad code's), and rows in one order in every batch: no batch deadlocks another, nor a
 *   single writer. Answers a row per item, by its 1-based position `ord` (the caller's
 *   numbering): its outcome and its entry, if any. A lock wait of more than 20 s inside it
 *   (lock_timeout) fails the batch in the database, before the service stops waiting for its
 *   answer (30 s, src/db/statement-batch.ts): rolled back, not left to commit unobserved.
 */
export function lockWritesMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      await sql`
        create function report_locked_decision(
          p_lock_id text, p_locked integer, p_now double precision, p_report_ts double precision, p_overtaken_within double precision,
          p_battery integer, p_jammed integer, p_tamper integer, p_door_open integer, p_lockdown text, p_by_operation boolean)
        returns text
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
              if not found then return 'unknown'; end if;
              -- claimReportTime's condition, negated: a later report within the window is recorded.
              if p_report_ts is not null and v_row.report_ts > p_report_ts and v_row.report_ts <= p_report_ts + p_overtaken_within then
                return 'overtaken';
              end if;
            end if;
            if (p_battery is not null and v_row.battery is distinct from p_battery)
                or (p_jammed is not null and v_row.jammed is distinct from p_jammed)
                or (p_tamper is not null and v_row.tamper is distinct from p_tamper)
                or (p_door_open is not null and v_row.door_open is distinct from p_door_open)
                or (p_lockdown is not null and v_row.reported_lockdown is distinct from p_lockdown) then
              return 'fallback';
            end if;
            if v_pass = 1 and v_row.locked is not distinct from p_locked then return 'unchanged'; end if;
          end loop;
          -- The row locked; the report's other values it holds.
          if v_row.locked is distinct from p_locked and v_row.pending_target_locked = p_locked and v_row.pending_until > p_now
              and v_row.pending_late = 1 and v_row.pending_command_id is not null then
            return 'fallback';
          end if;
          if p_report_ts is not null then update locks as l set report_ts = p_report_ts where l.id = p_lock_id; end if;
          if v_row.locked is not distinct from p_locked then return 'unchanged'; end if;
          update locks as l set locked = p_locked, last_operation = p_now, updated = p_now where l.id = p_lock_id;
          if v_row.locked is null or p_by_operation or (v_row.pending_target_locked = p_locked and v_row.pending_until > p_now) then
            return 'stored';
          end if;
          return 'append';
        end
        $fn$`.execute(db);
      await sql`
        create or replace function report_locked(
          p_lock_id text, p_locked integer, p_now double precision, p_report_ts double precision, p_overtaken_within double precision,
          p_battery integer, p_jammed integer, p_tamper integer, p_door_open integer, p_lockdown text, p_by_operation boolean,
          p_id text, p_timestamp double precision, p_type text, p_message text, p_hash_version integer, p_preimage text[], p_outbox boolean)
        returns table (outcome text, seq bigint, hash text, prev_hash text, actor_email text, actor_display_name text,
          subject_email text, subject_display_name text, outboxed boolean)
        language plpgsql volatile set plan_cache_mode = force_generic_plan as $fn$
        begin
          outcome := report_locked_decision(p_lock_id, p_locked, p_now, p_report_ts, p_overtaken_within, p_battery, p_jammed, p_tamper,
            p_door_open, p_lockdown, p_by_operation);
          if outcome = 'append' then
            select a.seq, a.hash, a.prev_hash, a.actor_email, a.actor_display_name, a.subject_email, a.subject_display_name, a.outboxed
              into seq, hash, prev_hash, actor_email, actor_display_name, subject_email, subject_display_name, outboxed
              from audit_append(p_lock_id, null, null, p_id, p_timestamp, p_type, null, null, null, 0, p_message, null,
                p_hash_version, p_preimage, p_outbox) as a;
            outcome := 'audited';
          end if;
          return next;
        end
        $fn$`.execute(db);
      await sql`
        create type lock_write_item as (ord integer, kind text, lock_id text, locked integer, now double precision,
          report_ts double precision, overtaken_within double precision, battery integer, jammed integer, tamper integer,
          door_open integer, lockdown text, by_operation boolean, stored_at double precision, entry_id text, actor_id text,
          subject_id text, entry_ts double precision, entry_type text, actor_ip text, user_agent_type text,
          user_agent_version text, rejected integer, message text, details text, hash_version integer, preimage text[],
          outbox boolean, replay_key text, used_at double precision, keep_until double precision, actor_user_id text,
          pending_until double precision, command_id text)`.execute(db);
      await sql`
        create function lock_writes(p_items json)
        returns table (ord integer, outcome text, seq bigint, hash text, prev_hash text, actor_email text, actor_display_name text,
          subject_email text, subject_display_name text, outboxed boolean)
        language plpgsql volatile set plan_cache_mode = force_generic_plan set lock_timeout = '20s' as $fn$
        declare
          v_items lock_write_item[];
          v_item lock_write_item;
          v_outcomes text[];
        begin
          v_items := array(select i from json_populate_recordset(null::lock_write_item, p_items) as i order by i.lock_id, i.ord);
          v_outcomes := array_fill(null::text, array[coalesce(array_length(v_items, 1), 0)]);
          -- The lock rows, by lock and, for one lock, as the caller listed the items.
          foreach v_item in array v_items loop
            if v_item.kind = 'confirm' then
              update locks as l set locked = v_item.locked, last_operation = v_item.stored_at, updated = v_item.stored_at
                where l.id = v_item.lock_id and (l.locked is null or l.locked != v_item.locked);
              v_outcomes[v_item.ord] := 'confirmed';
            elsif v_item.kind = 'begin' then
              -- The row, then its replay key, as every writer of a key takes them (the previous
              -- release's begin, a LAN operation's report, a keypad code's): an insert of a key another
              -- transaction inserted waits for that one, which then holds the row already. Already used
              -- (here, or by a transaction committed meanwhile): 'reused', nothing written.
              perform from locks as l where l.id = v_item.lock_id for update;
              insert into used_operation_tokens (lock_id, replay_key, used_at, expires_at)
                values (v_item.lock_id, v_item.replay_key, v_item.used_at, v_item.keep_until)
                on conflict (lock_id, replay_key) do nothing;
              v_outcomes[v_item.ord] := case when found then 'begun' else 'reused' end;
              if v_outcomes[v_item.ord] = 'begun' then
                update locks as l set pending_actor_user_id = v_item.actor_user_id, pending_target_locked = v_item.locked,
                    pending_until = v_item.pending_until, pending_command_id = v_item.command_id, pending_late = 0
                  where l.id = v_item.lock_id;
              end if;
            elsif v_item.kind = 'report' then
              v_outcomes[v_item.ord] := report_locked_decision(v_item.lock_id, v_item.locked, v_item.now, v_item.report_ts,
                v_item.overtaken_within, v_item.battery, v_item.jammed, v_item.tamper, v_item.door_open, v_item.lockdown,
                v_item.by_operation);
            else
              raise exception 'lock_writes: unknown kind %', v_item.kind;
            end if;
          end loop;
          -- Every row written: now the tree head's lock, once, for the entries, in the rows' order.
          foreach v_item in array v_items loop
            ord := v_item.ord;
            outcome := v_outcomes[v_item.ord];
            seq := null; hash := null; prev_hash := null; actor_email := null; actor_display_name := null;
            subject_email := null; subject_display_name := null; outboxed := null;
            if outcome in ('confirmed', 'append') then
              select a.seq, a.hash, a.prev_hash, a.actor_email, a.actor_display_name, a.subject_email, a.subject_display_name, a.outboxed
                into seq, hash, prev_hash, actor_email, actor_display_name, subject_email, subject_display_name, outboxed
                from audit_append(v_item.lock_id, v_item.actor_id, v_item.subject_id, v_item.entry_id, v_item.entry_ts, v_item.entry_type,
                  v_item.actor_ip, v_item.user_agent_type, v_item.user_agent_version, v_item.rejected, v_item.message, v_item.details,
                  v_item.hash_version, v_item.preimage, v_item.outbox) as a;
              if outcome = 'append' then outcome := 'audited'; end if;
            end if;
            return next;
          end loop;
        end
        $fn$`.execute(db);
    },
  };
}
