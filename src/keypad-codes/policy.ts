import { adminOnly, type Decision, type Enrolment } from '../access/member-policy.js';

/**
 * Keypad codes' rules (issue 30), pure: who manages codes, what digits a lock takes, and the state
 * of a code on one lock. `now` is Unix seconds. Whether an entered code opens the door is the
 * lock's own rule (src/access/keypad-code.ts).
 */

/** The digits every supported lock accepts (Z-Wave User Code: 4–10, Matter PIN: typically 4–8). */
export const MIN_CODE_LENGTH = 4;
export const MAX_CODE_LENGTH = 8;
export const DEFAULT_CODE_LENGTH = 6;
export const CODE_DIGITS_PATTERN = `^[0-9]{${MIN_CODE_LENGTH},${MAX_CODE_LENGTH}}$`;

/** How many digits one lock's keypad takes (device protocol 1.5 `codeDigits`). */
export interface DigitRange {
  min: number;
  max: number;
}

/**
 * The lengths every one of these locks takes: the range every supported lock takes, narrowed by
 * what each lock said of its own keypad (a lock that said nothing narrows nothing). Null when no
 * length fits them all.
 */
export function commonDigits(ranges: ReadonlyArray<DigitRange | null>): DigitRange | null {
  let min = MIN_CODE_LENGTH;
  let max = MAX_CODE_LENGTH;
  for (const range of ranges) {
    if (range === null) continue;
    min = Math.max(min, range.min);
    max = Math.min(max, range.max);
  }
  return min <= max ? { min, max } : null;
}

/** The length of a generated code: the default when every lock takes it, else the nearest they all take. */
export function generatedLength(range: DigitRange): number {
  return Math.min(range.max, Math.max(range.min, DEFAULT_CODE_LENGTH));
}

/** Creating, changing, revoking and reading a lock's codes: an ADMIN inside their window. */
export function canManageCodes(member: Enrolment, now: number): Decision {
  return adminOnly(member, now);
}

/** A time-limited ADMIN grants no code that outlasts their own access (as with shares). */
export function codeOutlastsGranter(actor: Enrolment, code: { end?: number | null }): boolean {
  return actor.end != null && (code.end == null || code.end > actor.end);
}

/** Digits that are too easy to guess: one digit repeated, or a run up or down (1234, 9876). */
export function isTrivialCode(digits: string): boolean {
  if (/^(\d)\1*$/.test(digits)) return true;
  const steps = [...digits].slice(1).map((d, i) => Number(d) - Number(digits[i]));
  return steps.every((step) => step === 1) || steps.every((step) => step === -1);
}

export type CodeStatus = 'active' | 'scheduled' | 'expired' | 'used_up' | 'revoked' | 'holder_access_ended';

export interface CodeFacts {
  start: number | null;
  end: number | null;
  maxUses: number | null;
  /** Uses across every lock of the code. */
  uses: number;
}

export interface CodeOnLock {
  removedReason: string | null;
  /** For a member's code: whether the membership it was granted with still stands (null: a guest's code). */
  holderMember: { start: number | null; end: number | null } | null | 'gone';
}

/**
 * A code's state on one lock: removed (revoked, used up), its holder's access over (the membership
 * it was granted under gone, or its window ended), its own window over or not begun, or active.
 */
export function codeStatus(code: CodeFacts, onLock: CodeOnLock, now: number): CodeStatus {
  if (onLock.removedReason === 'used_up' || (code.maxUses !== null && code.uses >= code.maxUses)) return 'used_up';
  if (onLock.removedReason !== null) return 'revoked';
  if (onLock.holderMember === 'gone' || (onLock.holderMember !== null && onLock.holderMember.end !== null && now >= onLock.holderMember.end)) return 'holder_access_ended';
  if (code.end !== null && now >= code.end) return 'expired';
  if (code.start !== null && now < code.start) return 'scheduled';
  return 'active';
}

/** Whether a code still belongs in the lock's config: it may open now or later. */
export function codeTravels(status: CodeStatus): boolean {
  return status === 'active' || status === 'scheduled';
}

export type SyncState = 'pending' | 'applied' | 'failed';

/** Whether the lock holds a code's last change: its config version reached the change's, or it refused it. */
export function syncState(changedVersion: number, appliedVersion: number | null, error: string | null): SyncState {
  if (error !== null) return 'failed';
  return appliedVersion !== null && appliedVersion >= changedVersion ? 'applied' : 'pending';
}
