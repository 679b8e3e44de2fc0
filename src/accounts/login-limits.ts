import type { AppContext } from '../context.js';
import { normaliseEmail } from './queries.js';

/**
 * Failed logins are counted per (account, address) and, far more loosely, per account from every
 * address (decisions.md "Failed logins"). A guesser at one address locks out only that address;
 * the owner elsewhere logs in as usual. The account-wide ceiling stops guessing spread over many
 * addresses, and is the one count that can still lock the owner out, which is why it is high.
 */
export interface LoginAttempt {
  readonly account: string;
  readonly pair: string;
}

export function loginAttempt(email: string, address: string): LoginAttempt {
  const account = normaliseEmail(email);
  return { account, pair: `${account}|${address}` };
}

/**
 * Counts the attempt before the password is checked, so parallel guesses cannot all slip in
 * under a limit; throws 429 when either count is spent. An address already refused adds
 * nothing to the account-wide count, so one address cannot spend it alone.
 */
export async function countLoginAttempt(ctx: AppContext, attempt: LoginAttempt): Promise<void> {
  await ctx.limits.loginFailuresPerAccount.consume(attempt.pair);
  try {
    await ctx.limits.loginFailuresPerAccountAll.consume(attempt.account);
  } catch (err) {
    // Refused by the ceiling, not by this address's own guesses: the pair keeps its allowance.
    await ctx.limits.loginFailuresPerAccount.refund(attempt.pair);
    throw err;
  }
}

/** A success: this address's failures are forgotten and the attempt is given back to the ceiling. */
export async function clearLoginAttempt(ctx: AppContext, attempt: LoginAttempt): Promise<void> {
  await ctx.limits.loginFailuresPerAccount.reset(attempt.pair);
  await ctx.limits.loginFailuresPerAccountAll.refund(attempt.account);
}

/** A password reset proves the mailbox: the ceiling and the resetting address start afresh. */
export async function forgetLoginFailures(ctx: AppContext, attempt: LoginAttempt): Promise<void> {
  await ctx.limits.loginFailuresPerAccount.reset(attempt.pair);
  await ctx.limits.loginFailuresPerAccountAll.reset(attempt.account);
}
