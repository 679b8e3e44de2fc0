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
 * set a connection keeps is bounded (MAX_NAMED_PER_CONNECTION): a text whose shape varies with its
 * values (an IN list of n parameters) makes a new text per length, and past the bound they run
 * unnamed, as before. The name is a hash of the text, so every connection names a text alike.
 */

/** Statements prepared on one connection at most; the hot path has a few dozen. */
export const MAX_NAMED_PER_CONNECTION = 400;
/** Texts remembered as "sent before" per connection at most; the memory starts over past it (a process's shapes are far fewer). */
const MAX_SEEN = 5_000;

export function statementName(text: string): string {
  return `lk_${createHash('sha1').update(text).digest('base64url')}`;
}

type Query = (...args: unknown[]) => unknown;

/** A pg Client that names its repeated parameterised statements (see the top of this file). */
export class NamingClient extends pg.Client {
  private readonly names = new Map<string, string>();
  private readonly seen = new Set<string>();

  override query(...args: unknown[]): never {
    const [text, values] = args;
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values) && values.length > 0) {
      let name = this.names.get(text);
      if (name === undefined && this.names.size < MAX_NAMED_PER_CONNECTION && this.sentBefore(text)) this.names.set(text, (name = statementName(text)));
      if (name !== undefined) return (super.query as Query).call(this, { name, text, values }) as never;
    }
    return (super.query as Query).apply(this, args) as never;
  }

  private sentBefore(text: string): boolean {
    if (this.seen.has(text)) return true;
    if (this.seen.size >= MAX_SEEN) this.seen.clear();
    this.seen.add(text);
    return false;
  }
}
