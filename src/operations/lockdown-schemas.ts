import { Type, type Static } from '@sinclair/typebox';

/** GET /lockdowns (issue 31 point 4): what was declared, the lifts signed so far, and what each lock says it enforces. */

const Person = Type.Object({
  userId: Type.String(),
  name: Type.Union([Type.String(), Type.Null()], { description: "the person's display name, else their email; null when neither is known" }),
});

export const LockdownLock = Type.Object({
  lockId: Type.String(),
  lifts: Type.Integer({ description: 'lifts signed so far that name this lock' }),
  liftedAt: Type.Union([Type.Number(), Type.Null()], { description: 'when the service counted the quorum of lifts for this lock (Unix seconds); null while it holds' }),
  reported: Type.Union([Type.Literal('in_force'), Type.Literal('not_in_force'), Type.Literal('unknown')], {
    description: 'what the lock last said (device protocol 1.4 state.lockdown): this lockdown in force, not in force (not yet applied, or lifted at the lock), or unknown (it never said)',
  }),
  reportedAt: Type.Union([Type.Number(), Type.Null()], { description: 'when what the lock says last changed (Unix seconds)' }),
});

export const LockdownView = Type.Object({
  id: Type.String(),
  declaredBy: Person,
  declaredAt: Type.Number({ description: 'Unix seconds' }),
  scope: Type.Object({
    kind: Type.Union([Type.Literal('lock'), Type.Literal('site'), Type.Literal('all')], { description: "what the declaration's sub named: one lock, a site, or all the declarer's locks" }),
    id: Type.String({ description: 'the lock, the site, or the declaring user' }),
  }),
  quorum: Type.Integer({ description: 'distinct administrators whose LIFT_LOCKDOWN it takes (k)' }),
  responders: Type.Array(Person, { description: 'members whose unlocks the locks still carry out' }),
  lifts: Type.Array(Type.Object({ ...Person.properties, signedAt: Type.Number({ description: 'Unix seconds' }) }), { description: 'the lifts signed so far, oldest first' }),
  locks: Type.Array(LockdownLock, { description: 'the locks it names that the caller administers' }),
});
export type LockdownView = Static<typeof LockdownView>;

export const LockdownList = Type.Object({
  lockdowns: Type.Array(LockdownView, { description: 'newest first: those holding on a lock the caller administers (not yet lifted by the service, or still said in force by the lock)' }),
});

export const LockdownQuery = Type.Object({
  siteId: Type.Optional(Type.String({ description: 'only the locks of this site' })),
  lockId: Type.Optional(Type.String({ description: 'only this lock' })),
}, { additionalProperties: false });
