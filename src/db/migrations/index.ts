import type { Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { accountsMigration } from './0001_accounts.js';
import { locksMigration } from './0002_locks.js';
import { auditMigration } from './0003_audit.js';
import { applicationsMigration } from './0004_applications.js';
import { lockCommandsMigration } from './0005_lock_commands.js';
import { certificatesMigration } from './0006_certificates.js';
import { heldInviteSharesMigration } from './0007_held_invite_shares.js';
import { auditTreeMigration } from './0008_audit_tree.js';
import { passwordResetMigration } from './0009_password_reset.js';
import { sdkShapesMigration } from './0010_sdk_shapes.js';
import { lateCommandsMigration } from './0012_late_commands.js';
import { cdnObjectsMigration } from './0013_cdn_objects.js';
import { auditPartiesMigration } from './0014_audit_parties.js';
import { deletedApplicationUsersMigration } from './0015_deleted_application_users.js';
import { lockDeviceMigration } from './0020_lock_device.js';
import { auditClientsMigration } from './0030_audit_clients.js';
import { memberSchedulesMigration } from './0040_member_schedules.js';
import { siteOwnersMigration } from './0041_site_owners.js';
import { applicationSenderMigration } from './0050_application_sender.js';
import { lockAlarmsMigration } from './0060_lock_alarms.js';
import { alarmTimersMigration } from './0070_alarm_timers.js';
import { alarmMailMigration } from './0071_alarm_mail.js';
import { lockdownsMigration } from './0072_lockdowns.js';
import { queuedOperationsMigration } from './0080_queued_operations.js';
import { lockDecommissionMigration } from './0081_lock_decommission.js';
import { visitorInvitationsMigration } from './0082_visitor_invitations.js';
import { directAccessMigration } from './0090_direct_access.js';
import { lockReportTimeMigration } from './0180_lock_report_time.js';
import { auditAppendStartMigration } from './0190_audit_append_start.js';
import { unauditedDisconnectsMigration } from './0220_unaudited_disconnects.js';
import { decommissionedIndexMigration } from './0260_decommissioned_index.js';
import { lockWritesMigration } from './0270_lock_writes.js';
import { auditAppendMigration } from './0230_audit_append.js';
import { clusterTurnsMigration } from './0240_cluster_turns.js';
import { reportLockedMigration } from './0250_report_locked.js';
import { genericPlansMigration } from './0251_generic_plans.js';
import { webhooksMigration } from './0110_webhooks.js';
import { keypadCodesMigration } from './0130_keypad_codes.js';
import { lockCodeDigitsMigration } from './0150_lock_code_digits.js';
import { reportedLockdownMigration } from './0170_reported_lockdown.js';

/**
 * Every migration, registered explicitly and in order. Migrations are immutable once merged:
 * change the schema with a new numbered file.
 */
export function migrations(dialect: DialectName): Record<string, Migration> {
  return {
    '0001_accounts': accountsMigration(dialect),
    '0002_locks': locksMigration(dialect),
    '0003_audit': auditMigration(dialect),
    '0004_applications': applicationsMigration(dialect),
    '0005_lock_commands': lockCommandsMigration(dialect),
    '0006_certificates': certificatesMigration(dialect),
    '0007_held_invite_shares': heldInviteSharesMigration(dialect),
    '0008_audit_tree': auditTreeMigration(dialect),
    '0009_password_reset': passwordResetMigration(dialect),
    '0010_sdk_shapes': sdkShapesMigration(dialect),
    '0012_late_commands': lateCommandsMigration(),
    '0013_cdn_objects': cdnObjectsMigration(dialect),
    '0014_audit_parties': auditPartiesMigration(),
    '0015_deleted_application_users': deletedApplicationUsersMigration(dialect),
    '0020_lock_device': lockDeviceMigration(),
    '0030_audit_clients': auditClientsMigration(),
    '0040_member_schedules': memberSchedulesMigration(),
    '0041_site_owners': siteOwnersMigration(),
    '0050_application_sender': applicationSenderMigration(dialect),
    '0060_lock_alarms': lockAlarmsMigration(dialect),
    '0070_alarm_timers': alarmTimersMigration(dialect),
    '0071_alarm_mail': alarmMailMigration(),
    '0072_lockdowns': lockdownsMigration(dialect),
    '0080_queued_operations': queuedOperationsMigration(dialect),
    '0081_lock_decommission': lockDecommissionMigration(dialect),
    '0082_visitor_invitations': visitorInvitationsMigration(dialect),
    '0090_direct_access': directAccessMigration(dialect),
    '0110_webhooks': webhooksMigration(dialect),
    '0130_keypad_codes': keypadCodesMigration(dialect),
    '0150_lock_code_digits': lockCodeDigitsMigration(),
    '0170_reported_lockdown': reportedLockdownMigration(dialect),
    '0180_lock_report_time': lockReportTimeMigration(dialect),
    '0190_audit_append_start': auditAppendStartMigration(dialect),
    '0220_unaudited_disconnects': unauditedDisconnectsMigration(),
    '0230_audit_append': auditAppendMigration(dialect),
    '0240_cluster_turns': clusterTurnsMigration(dialect),
    '0250_report_locked': reportLockedMigration(dialect),
    '0251_generic_plans': genericPlansMigration(dialect),
    '0260_decommissioned_index': decommissionedIndexMigration(),
    '0270_lock_writes': lockWritesMigration(dialect),
  };
}
