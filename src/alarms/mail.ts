import type { AppContext } from '../context.js';
import type { UnitOfWork } from '../db/transaction.js';
import { renderEmail } from '../messaging/branding.js';
import { describeAlarm, type AlarmKind } from './kinds.js';
import { alarmMailRecipients, readThresholdRow, type AlarmMailRecipient } from './queries.js';
import { mailsKind } from './thresholds.js';

/**
 * The email a raised alarm sends to each of the lock's active administrators, when the lock's
 * choice for the kind says so (GET/PUT /device/{id}/alarm-settings, `mail`). Only to a verified
 * address, in the recipient's own branding, and naming the lock by the recipient's own name for it
 * or the name its operator provisioned it with: nothing in it was chosen by anyone else (a
 * co-administrator's lock name, a member's text). Queued after commit, never holding the report.
 */
export async function mailAlarm(ctx: AppContext, uow: UnitOfWork, lockId: string, kind: AlarmKind, detail: string, at: number): Promise<void> {
  if (!mailsKind(await readThresholdRow(uow.db, lockId), kind)) return;
  const recipients = await alarmMailRecipients(uow.db, lockId, at);
  for (const recipient of recipients) {
    uow.onCommit(() => ctx.mailer.sendLater('alarm email', () => composeAlarmMail(ctx, recipient, lockId, kind, detail)));
  }
}

async function composeAlarmMail(ctx: AppContext, recipient: AlarmMailRecipient, lockId: string, kind: AlarmKind, detail: string) {
  const branding = await ctx.brandingFor(recipient.namespace);
  const door = recipient.alias ?? recipient.lockName;
  const what = describeAlarm(kind);
  const message = renderEmail(branding, {
    subject: `Alarm: ${what} (${door})`,
    heading: `Alarm: ${what}`,
    paragraphs: [
      `The door "${door}" raised an alarm: ${what}${detail}.`,
      'You receive this because you administer it. Its administrators choose which alarms are emailed, in its alarm settings.',
    ],
    action: { url: `${ctx.config.baseUrl}/console/locks/${encodeURIComponent(lockId)}`, text: 'Open the lock' },
  });
  return { to: recipient.email, ...message };
}
