import { Type, type Static } from '@sinclair/typebox';

export const LockAlarm = Type.Object({
  id: Type.String(),
  // The kinds of src/alarms/kinds.ts (ALARM_KINDS).
  kind: Type.Union([Type.Literal('jammed'), Type.Literal('tampered'), Type.Literal('battery_low'), Type.Literal('battery_critical')]),
  raisedAt: Type.Number({ description: 'Unix seconds' }),
  clearedAt: Type.Union([Type.Number(), Type.Null()], { description: 'Unix seconds; null while open' }),
});
export type LockAlarm = Static<typeof LockAlarm>;

export const LockAlarms = Type.Object({
  open: Type.Array(LockAlarm, { description: 'open alarms, most recently raised first' }),
  history: Type.Array(LockAlarm, { description: 'the 100 most recently raised cleared alarms' }),
});
