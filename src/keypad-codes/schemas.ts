import { Type, type Static } from '@sinclair/typebox';
import { scheduleSchema } from '../access/schemas.js';
import { MAX_CODE_LENGTH, MIN_CODE_LENGTH } from './policy.js';

/** Locks one request may keep in step (one signed operation each). */
export const MAX_LOCKS_PER_CODE_REQUEST = 50;

const CompactJws = Type.String({ minLength: 1, maxLength: 16 * 1024, description: 'a signed operation (compact JWS), as POST /device/{id}/execute takes; its `sub` names the lock' });

const Tokens = (operation: string) =>
  Type.Array(CompactJws, {
    minItems: 1,
    maxItems: MAX_LOCKS_PER_CODE_REQUEST,
    description: `one signed ${operation} per lock, at most ${MAX_LOCKS_PER_CODE_REQUEST}, each signed by the caller, an administrator of that lock`,
  });

export const NewCodeBody = Type.Object({
  tokens: Tokens('ADD_CODE (all naming the same code, holder, window, schedule and maximum uses)'),
  digits: Type.Optional(Type.String({ pattern: `^[0-9]{${MIN_CODE_LENGTH},${MAX_CODE_LENGTH}}$`, description: `the code, typed: ${MIN_CODE_LENGTH} to ${MAX_CODE_LENGTH} digits; absent: generated` })),
  length: Type.Optional(Type.Integer({ minimum: MIN_CODE_LENGTH, maximum: MAX_CODE_LENGTH, description: 'digits of a generated code (default 6)' })),
});
export type NewCodeBody = Static<typeof NewCodeBody>;

export const ChangeCodeBody = Type.Object({ tokens: Tokens('ADD_CODE naming this code') });
export const RevokeCodeBody = Type.Object({ tokens: Tokens('REMOVE_CODE naming this code') });

export const SendCodeBody = Type.Object(
  {
    digits: Type.String({ pattern: `^[0-9]{${MIN_CODE_LENGTH},${MAX_CODE_LENGTH}}$`, description: "the code's digits, as its creator holds them (typed, or shown once when generated); they must be this code's" }),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: "a guest's address: only one a Latchkey account verified (a member's code goes to the member's verified address)" })),
  },
  { additionalProperties: false },
);

export const CodeIdParams = Type.Object({ codeId: Type.String({ description: 'code UUID' }) });
export const CodeListQuery = Type.Object({ lockId: Type.Optional(Type.String({ maxLength: 64, description: 'only the codes of this lock (one the caller administers)' })) });

const Seconds = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

export const CodeOnLock = Type.Object({
  lockId: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('scheduled'), Type.Literal('expired'), Type.Literal('used_up'), Type.Literal('revoked'), Type.Literal('holder_access_ended')], {
    description: "active; scheduled (its window has not begun); expired; used_up; revoked; holder_access_ended (the member's access to the lock ended)",
  }),
  uses: Type.Integer({ minimum: 0, description: 'uses on this lock' }),
  lastUsedAt: Seconds('Unix seconds of its last use here; null: never'),
  sync: Type.Object({
    state: Type.Union([Type.Literal('pending'), Type.Literal('applied'), Type.Literal('failed')], { description: 'whether the lock holds the last change of the code' }),
    version: Type.Integer({ description: "the lock's config version that carries the last change" }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'why the lock refused the code (failed)' }),
  }),
});

export const KeypadCode = Type.Object({
  id: Type.String(),
  holder: Type.Object({
    kind: Type.Union([Type.Literal('member'), Type.Literal('guest')]),
    userId: Type.Union([Type.String(), Type.Null()], { description: "the member's user id; null for a guest" }),
    name: Type.Union([Type.String(), Type.Null()], { description: "the guest's name, or the member's display name or email" }),
  }),
  length: Type.Integer({ description: 'how many digits (the digits themselves are shown once, when generated)' }),
  start: Seconds('Unix seconds; null: from its creation'),
  end: Seconds('Unix seconds; null: until revoked (a member\'s code also ends with their access)'),
  schedule: Type.Union([scheduleSchema('weekly hours in which the code opens'), Type.Null()]),
  maxUses: Type.Union([Type.Integer(), Type.Null()], { description: 'uses allowed across its locks; 1 = one-time; null: unlimited' }),
  uses: Type.Integer({ description: 'uses across every lock of the code' }),
  createdAt: Type.Number(),
  createdBy: Type.String(),
  locks: Type.Array(CodeOnLock, { description: 'the locks of the code the caller administers' }),
});
export type KeypadCode = Static<typeof KeypadCode>;

export const CreatedCode = Type.Object({
  code: KeypadCode,
  digits: Type.Optional(Type.String({ description: 'the generated code, shown this once' })),
});
