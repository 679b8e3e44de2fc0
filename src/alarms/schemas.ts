import { Type, type Static } from '@sinclair/typebox';
import { THRESHOLD_BOUNDS } from './thresholds.js';

/** The kinds of src/alarms/kinds.ts (ALARM_KINDS; a unit test holds them equal). */
export const AlarmKindSchema = Type.Union([
  Type.Literal('jammed'), Type.Literal('tampered'), Type.Literal('battery_low'), Type.Literal('battery_critical'),
  Type.Literal('held_open'), Type.Literal('forced_open'), Type.Literal('offline'), Type.Literal('refused_unlocks'), Type.Literal('keypad_locked_out'),
]);

export const LockAlarm = Type.Object({
  id: Type.String(),
  kind: AlarmKindSchema,
  raisedAt: Type.Number({ description: 'Unix seconds' }),
  clearedAt: Type.Union([Type.Number(), Type.Null()], { description: 'Unix seconds; null while open' }),
});
export type LockAlarm = Static<typeof LockAlarm>;

export const LockAlarms = Type.Object({
  open: Type.Array(LockAlarm, { description: 'open alarms, most recently raised first' }),
  history: Type.Array(LockAlarm, { description: 'the 100 most recently raised cleared alarms' }),
});

function mailFields() {
  const flag = Type.Boolean();
  return {
    jammed: flag, tampered: flag, battery_low: flag, battery_critical: flag,
    held_open: flag, forced_open: flag, offline: flag, refused_unlocks: flag, keypad_locked_out: flag,
  };
}

const bounded = (key: keyof typeof THRESHOLD_BOUNDS, description: string) => Type.Integer({ ...THRESHOLD_BOUNDS[key], description });

export const AlarmSettings = Type.Object({
  heldOpenSeconds: bounded('heldOpenSeconds', 'the door open this long (seconds) raises held_open'),
  offlineSeconds: bounded('offlineSeconds', 'the lock offline this long (seconds) raises offline'),
  refusedUnlocks: bounded('refusedUnlocks', 'this many refused unlocks within refusedWindowSeconds raise refused_unlocks'),
  refusedWindowSeconds: bounded('refusedWindowSeconds', 'the window of refusedUnlocks, seconds'),
  mail: Type.Object(mailFields(), { description: "per kind, whether the lock's administrators (those with a verified email) are emailed when it is raised" }),
});
export type AlarmSettings = Static<typeof AlarmSettings>;

export const AlarmSettingsChange = Type.Object(
  {
    heldOpenSeconds: Type.Optional(AlarmSettings.properties.heldOpenSeconds),
    offlineSeconds: Type.Optional(AlarmSettings.properties.offlineSeconds),
    refusedUnlocks: Type.Optional(AlarmSettings.properties.refusedUnlocks),
    refusedWindowSeconds: Type.Optional(AlarmSettings.properties.refusedWindowSeconds),
    mail: Type.Optional(Type.Partial(Type.Object(mailFields()), { additionalProperties: false, description: 'the kinds to change; the others keep their choice' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const SiteAlarm = Type.Composite([LockAlarm, Type.Object({ lockId: Type.String() })]);
export type SiteAlarm = Static<typeof SiteAlarm>;
export const SiteAlarms = Type.Object({
  open: Type.Array(SiteAlarm, { description: "open alarms of the site's locks the caller administers, most recently raised first" }),
  history: Type.Array(SiteAlarm, { description: 'the 100 most recently raised cleared alarms of those locks' }),
});
