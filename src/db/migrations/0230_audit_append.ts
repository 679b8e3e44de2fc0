import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.js';

/**
 * PostgreSQL only (issue 33 point 3, third step): an audit entry appended by one call, in the
 * database: what src/audit/record.ts did in three round trips (audit_append_start, the entry with
 * its Merkle nodes and head, the webhooks' outbox row). SQLite keeps its in-process path; a test
 * (test/audit/append-in-database.test.ts) keeps both writing the same bytes.
 *
 * The caller hands in the entry's fields and its hash preimage (log-format.ts: RFC 8785 JSON) as
 * the text around five holes, in key order: actorDisplayName, actorEmail, previousHash,
 * subjectDisplayName, subjectEmail: what only the database knows at the time (the parties' user
 * rows read with the tree head's lock, the lock's last hash read after it, as 0190 reads them).
 * Each hole takes its value as JSON (`to_json(text)` escapes as JSON.stringify does: `"`, `\`,
 * \b \f \n \r \t, other controls as \u00xx in lower case, nothing else), the preimage is hashed
 * as UTF-8 with `sha256`, and the leaf is appended as merkle.ts's Frontier does (RFC 9162:
 * leaf = SHA-256(0x00 ‖ chain hash), node = SHA-256(0x01 ‖ left ‖ right); positions
 * level·2^40 + index, the frontier the perfect subtrees' roots, largest first).
 *
 * `p_outbox`: the entry is of a type a webhook event describes; its outbox row is written while an
 * endpoint is enabled (src/webhooks/outbox.ts's conditional insert). `p_after` is not read: a
 * caller passes a data-modifying WITH's row count there (the state an unlock's confirmation
 * stores), so that the statement runs it before the append (arguments are evaluated before the
 * call) and takes the lock row's lock before the tree head's, the order of every audit writer.
 */
export function auditAppendMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      await sql`
        create function audit_append(
          p_lock_id text, p_actor_id text, p_subject_id text, p_id text, p_timestamp double precision, p_type text,
          p_actor_ip text, p_user_agent_type text, p_user_agent_version text, p_rejected integer, p_message text,
          p_details text, p_hash_version integer, p_preimage text[], p_outbox boolean, p_after bigint default null)
        returns table (seq bigint, hash text, prev_hash text, actor_email text, actor_display_name text,
          subject_email text, subject_display_name text, outboxed boolean)
        language plpgsql volatile as $fn$
        declare
          v_size bigint;
          v_frontier bytea;
          v_carry bytea;
          v_level integer := 0;
          v_positions bigint[];
          v_hashes bytea[];
          v_rows integer;
        begin
          select head.size, head.frontier, actor.email, actor.display_name, subject.email, subject.display_name
            into v_size, v_frontier, actor_email, actor_display_name, subject_email, subject_display_name
            from audit_tree_head as head
            left join users as actor on actor.id = p_actor_id
            left join users as subject on subject.id = p_subject_id
            where head.id = 1
            for update of head;
          if not found then raise exception 'audit tree head is missing (migration 0008 not run?)'; end if;
          -- A statement of its own: its snapshot follows the head lock's grant (0190).
          select e.hash into prev_hash from audit_entries as e where e.lock_id = p_lock_id order by e.seq desc limit 1;
          prev_hash := coalesce(prev_hash, repeat('0', 64));
          hash := encode(sha256(convert_to(
            p_preimage[1] || coalesce(to_json(actor_display_name)::text, 'null') ||
            p_preimage[2] || coalesce(to_json(actor_email)::text, 'null') ||
            p_preimage[3] || to_json(prev_hash)::text ||
            p_preimage[4] || coalesce(to_json(subject_display_name)::text, 'null') ||
            p_preimage[5] || coalesce(to_json(subject_email)::text, 'null') ||
            p_preimage[6], 'UTF8')), 'hex');
          insert into audit_entries (id, lock_id, timestamp, type, actor_user_id, subject_user_id, actor_email, actor_display_name,
              subject_email, subject_display_name, actor_ip, user_agent_type, user_agent_version, rejected, message, details,
              prev_hash, hash, hash_version)
            values (p_id, p_lock_id, p_timestamp, p_type, p_actor_id, p_subject_id, actor_email, actor_display_name,
              subject_email, subject_display_name, p_actor_ip, p_user_agent_type, p_user_agent_version, p_rejected, p_message, p_details,
              prev_hash, hash, p_hash_version)
            returning audit_entries.seq into seq;
          v_carry := sha256('\\x00'::bytea || decode(hash, 'hex'));
          v_positions := array[v_size];
          v_hashes := array[v_carry];
          while (v_size >> v_level) & 1 = 1 loop
            v_carry := sha256('\\x01'::bytea || substring(v_frontier from length(v_frontier) - 31 for 32) || v_carry);
            v_frontier := substring(v_frontier from 1 for length(v_frontier) - 32);
            v_level := v_level + 1;
            v_positions := array_append(v_positions, v_level * 1099511627776 + (v_size >> v_level));
            v_hashes := array_append(v_hashes, v_carry);
          end loop;
          insert into audit_tree_nodes (position, hash, entry_seq)
            select n.position, n.hash, case when n.ord = 1 then seq end
            from unnest(v_positions, v_hashes) with ordinality as n(position, hash, ord);
          update audit_tree_head set size = v_size + 1, frontier = v_frontier || v_carry where id = 1;
          outboxed := false;
          if p_outbox then
            insert into webhook_outbox (audit_seq, created)
              select seq, p_timestamp from webhook_endpoints where enabled = 1 limit 1;
            get diagnostics v_rows = row_count;
            outboxed := v_rows > 0;
          end if;
          return next;
        end
        $fn$`.execute(db);
    },
  };
}
