import type { AppContext } from '../context.js';
import { renderEmail } from '../messaging/branding.js';
import type { KeypadCode } from './schemas.js';

/** A door of a code as its email names it: the recipient's own name for it, or the name its operator provisioned. */
export interface CodeMailDoor {
  alias: string | null;
  lockName: string;
}

const utc = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const day = (name: string) => name.charAt(0) + name.slice(1).toLowerCase();

/** The code's terms in the service's words (nothing an administrator wrote). */
export function describeTerms(code: Pick<KeypadCode, 'start' | 'end' | 'schedule' | 'maxUses'>): string[] {
  const terms: string[] = [];
  if (code.start !== null || code.end !== null) terms.push(`It works ${code.start === null ? 'from now' : `from ${utc(code.start)}`} ${code.end === null ? 'until it is revoked' : `until ${utc(code.end)}`}.`);
  for (const hours of code.schedule ?? []) terms.push(`Only on ${hours.days.map(day).join(', ')}, ${hours.start}–${hours.end} (${hours.timezone}).`);
  if (code.maxUses === 1) terms.push('It opens the door once.');
  else if (code.maxUses !== null) terms.push(`It opens the door ${code.maxUses} times.`);
  return terms;
}

/** The email that hands a code to its holder: the digits, its terms and the doors, in the recipient's branding. */
export async function composeCodeMail(ctx: AppContext, to: { email: string; namespace: string }, code: KeypadCode, doors: readonly CodeMailDoor[], digits: string) {
  const branding = await ctx.brandingFor(to.namespace);
  const names = doors.map((door) => `"${door.alias ?? door.lockName}"`).join(', ');
  const message = renderEmail(branding, {
    subject: 'Your door code',
    heading: 'Your door code',
    paragraphs: [
      `Your code for ${doors.length === 1 ? 'the door' : 'the doors'} ${names} is ${digits}. Type it on the lock's keypad.`,
      ...describeTerms(code),
      'Keep it to yourself: whoever has it can open the door while it works. Delete this email once you know it.',
    ],
  });
  return { to: to.email, ...message };
}
