import { createHash } from 'node:crypto';
import pg from 'pg';

/**
 * Named prepared statements on PostgreSQL (issue 33 point 3): node-postgres sends a statement's
 * text with every call (Parse, Bind, Execute), so PostgreSQL parses and plans it anew each time;
 * a statement sent with a name is parsed once per connection and then only bound and run. Under
 * the unlock bench that parse and plan was most of PostgreSQL's CPU per round trip
 * (docs/scaling.md, third step).
 *
 * Which texts get a name: those with parameters (kysely's queries; BEGIN and COMMIT have none and
 * nothing to plan) that this connection has sent before: the hot statements, not one-off texts. The
 * set a connection keeps is bounded (MAX_NAMED_PER_CONNECTION), and a text whose shape varies with
 * its values (an IN list of n parameters: a new text per length) is not named at all. The name is
 * a hash of the text, so every connection names a text alike. A named statement whose table a
 * migration reshaped under a running instance fails once ("cached plan must not change result
 * type"); the text then runs unnamed on that connection.
 */

/** Statements prepared on one connection at most; the hot path has a few dozen. */
export const MAX_NAMED_PER_CONNECTION = 400;
/** Texts remembered as "sent before" per connection at most; the memory starts over past it (a process's shapes are far fewer). */
const MAX_SEEN = 1_000;
/** Longer texts are neither named nor remembered: the long ones are those that vary (lists, bulk inserts). */
const MAX_NAMED_TEXT = 4_096;
/**
 * A parenthesised list of four parameters or more: an IN list or a multi-row VALUES, a new text for
 * each length. Never named, so lists cannot take the slots the hot path's statements need.
 */
const VARIABLE_LIST = /\(\$\d+(?:, ?\$\d+){3,}\)/;
/**
 * PostgreSQL's "cached plan must not change result type": a table under a named statement changed
 * shape (a newer instance migrated the database while this one runs).
 */
const STALE_PLAN = '0A000';

export function statementName(text: string): string {
  return `lk_${createHash('sha1').update(text).digest('base64url')}`;
}

type Query = (...args: unknown[]) => unknown;

/** A pg Client that names its repeated parameterised statements (see the top of this file). */
export class NamingClient extends pg.Client {
  private readonly names = new Map<string, string>();
  private readonly seen = new Set<string>();
  /** Texts whose named statement went stale: PostgreSQL keeps it under its name while the connection lives, so they run unnamed. */
  private readonly stale = new Set<string>();

  override query(...args: unknown[]): never {
    const [text, values] = args;
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values) && values.length > 0) {
      let name = this.names.get(text);
      if (name === undefined && this.mayName(text)) this.names.set(text, (name = statementName(text)));
      if (name !== undefined) {
        const running = (super.query as Query).call(this, { name, text, values }) as Promise<unknown>;
        // That call fails; the next ones run unnamed and see the table as it is now.
        return running.catch((err: unknown) => {
          if ((err as { code?: unknown } | null)?.code === STALE_PLAN) {
            this.names.delete(text);
            this.stale.add(text);
          }
          throw err;
        }) as never;
      }
    }
    return (super.query as Query).apply(this, args) as never;
  }

  private mayName(text: string): boolean {
    if (this.names.size >= MAX_NAMED_PER_CONNECTION || text.length > MAX_NAMED_TEXT || this.stale.has(text) || VARIABLE_LIST.test(text)) return false;
    if (this.seen.has(text)) return true;
    if (this.seen.size >= MAX_SEEN) this.seen.clear();
    this.seen.add(text);
    return false;
  }
}
