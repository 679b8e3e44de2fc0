import type { KeyObject } from 'node:crypto';
import { codeOpensNow } from '../access/keypad-code.js';
import { sameSecret } from '../crypto/compare.js';
import type { TrustAnchor } from '../crypto/chain.js';
import { keypadBoxFromSecret, keypadSealContext } from '../crypto/keypad-seal.js';
import { parseLegacyPublicKey, sameId, verifyOperationSignature } from '../crypto/operation-token.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { ConfigCode, ConfigUser, LockConfig } from '../device-protocol/payloads.js';
import { isAppError } from '../errors/catalogue.js';
import { decodeOperationToken } from '../operations/body.js';
import { parseAddCode, type AddCodeOperation } from '../operations/code-operations.js';
import { KeypadStore } from './keypad-store.js';

/**
 * A lock's keypad (device protocol 1.5, docs/device-protocol.md "Codes"): the codes its config
 * carries, each taken only when an ADMIN of the lock signed its ADD_CODE (its terms are read from
 * that token, never from the config beside it) and its digits open with the lock's keypad key;
 * what a typed code does (the code's window, schedule and uses, its holder's access, on the lock's
 * clock); and the lockout after repeated wrong codes. Shared by the simulator and the bridge.
 */

/** Wrong codes within LOCKOUT_WINDOW_SECONDS that lock the keypad out. */
export const MAX_WRONG_ENTRIES = 5;
export const LOCKOUT_WINDOW_SECONDS = 300;
export const LOCKOUT_SECONDS = 300;

/** A code the lock took: its terms from the signed ADD_CODE, its digits opened. */
interface HeldCode {
  id: string;
  /** Who signed its ADD_CODE: an ADMIN of each config that keeps it. */
  signer: string;
  terms: AddCodeOperation;
  digits: string;
  usedElsewhere: number;
  token: string;
}

export type KeypadRefusal = 'unknown_code' | 'outside_window' | 'outside_schedule' | 'used_up' | 'holder_inactive' | 'locked_out' | 'busy' | 'locked_down';

export type KeypadEntry =
  | { ok: true; codeId: string; holder: { userId: string } | { guest: string } }
  | { ok: false; reason: KeypadRefusal; codeId?: string; lockoutUntil?: number };

/** A held code as a real lock's keypad should hold it now (the bridge mirrors this into the lock). */
export interface KeypadCode {
  id: string;
  digits: string;
  /** Whether the code may open now: its window, schedule, uses, holder's access, no lockout or lockdown against it. */
  opens: boolean;
}

/** Every held code, and when (Unix seconds) one of them may next change whether it opens (null: never by time alone). */
export interface KeypadView {
  codes: KeypadCode[];
  nextChange: number | null;
}

/**
 * A real lock's own keypad kept in line with this one (the bridge's code slots,
 * src/bridge/keypad-slots.ts): the lock checks typed digits itself and tells which slot opened.
 */
export interface KeypadMirror {
  /** Makes the real keypad hold `view` (resolves once written or failed; never rejects). */
  update(view: KeypadView): Promise<void>;
  /** The code whose digits the real lock holds in `slot`, if any. */
  codeAt(slot: number): string | undefined;
  /** Codes the real lock does not hold as it should (a write failed, no free slot): said in `state.codeErrors`. */
  readonly errors: Array<{ code: string; error: string }>;
}

export interface KeypadOptions {
  lockId: string;
  /** The device secret: the keypad key is derived from it. */
  secret: string;
  /** The root CA tokens' x5c chains must end at (EdDSA). */
  anchor: TrustAnchor | undefined;
  now: () => number;
  /** Where each code's uses and a lockout are kept across restarts; without it, in memory only. */
  file?: string | undefined;
}

export class Keypad {
  private readonly box: SecretBox;
  private codes: HeldCode[] = [];
  /** Refusals of the config held: code id → reason (what `state.codeErrors` says). */
  private refusedCodes: Array<{ code: string; error: string }> = [];
  /** Checked entries by token, so a config sent again is not verified again. */
  private readonly verified = new Map<string, HeldCode | { error: string }>();
  /** Uses on this lock, by code id (a new config does not reset them), and a lockout: kept across restarts. */
  private readonly store: KeypadStore;
  private wrong: number[] = [];
  private users: ConfigUser[] = [];

  constructor(private readonly options: KeypadOptions) {
    this.box = keypadBoxFromSecret(options.secret, options.lockId);
    this.store = new KeypadStore(options.file ?? null);
  }

  /** The codes of the config held that the lock refused (protocol 1.5 `state.codeErrors`). */
  get codeErrors(): Array<{ code: string; error: string }> {
    return this.refusedCodes;
  }

  get hasCodes(): boolean {
    return this.codes.length > 0 || this.refusedCodes.length > 0;
  }

  /** Takes the codes of a new config (none: the config was deleted). */
  async configure(config: LockConfig | null): Promise<void> {
    this.users = config?.users ?? [];
    const held: HeldCode[] = [];
    const refused: Array<{ code: string; error: string }> = [];
    const seen = new Map<string, HeldCode | { error: string }>();
    for (const entry of config?.codes ?? []) {
      const checked = this.verified.get(entry.token) ?? (await this.check(entry));
      seen.set(entry.token, checked);
      // Every config: the signer must still be one of its ADMINs (the signature check above is kept).
      const signer = 'error' in checked ? undefined : this.users.find((user) => sameId(user.userId, checked.signer));
      if ('error' in checked) refused.push({ code: entry.id, error: checked.error });
      else if (signer === undefined || signer.role !== 'ADMIN') refused.push({ code: entry.id, error: 'not_admin: the signer is not an administrator of this lock' });
      else held.push({ ...checked, usedElsewhere: entry.usedElsewhere ?? 0 });
    }
    this.verified.clear();
    for (const [token, checked] of seen) this.verified.set(token, checked);
    this.codes = held;
    this.refusedCodes = refused;
  }

  /** A code typed at the keypad. */
  enter(digits: string): KeypadEntry {
    const now = this.options.now();
    const lockedOutUntil = this.store.lockedOutUntil;
    if (now < lockedOutUntil) return { ok: false, reason: 'locked_out', lockoutUntil: lockedOutUntil };
    // Every held code compared, in time that does not depend on which (or whether one) matches.
    let match: HeldCode | undefined;
    for (const code of this.codes) if (sameSecret(digits, code.digits) && match === undefined) match = code;
    if (match === undefined) return this.wrongEntry(now);
    const terms = match.terms;
    const holder = terms.user === undefined ? null : this.users.find((user) => sameId(user.userId, terms.user!));
    if (holder === undefined) return { ok: false, reason: 'holder_inactive', codeId: match.id };
    const used = this.store.usesOf(match.id) + match.usedElsewhere;
    const opens = codeOpensNow(terms, used, holder, now);
    if (!opens.ok) return { ok: false, reason: opens.reason, codeId: match.id };
    this.store.countUse(match.id);
    this.wrong = [];
    return { ok: true, codeId: match.id, holder: terms.user === undefined ? { guest: terms.guest! } : { userId: terms.user } };
  }

  /**
   * What a real keypad should hold now: each code with whether it opens (as `enter` would decide,
   * `mayUnlock` saying whether a lockdown lets its holder in), and the next instant that may change.
   */
  view(mayUnlock: (userId: string) => boolean): KeypadView {
    const now = this.options.now();
    const lockedOutUntil = this.store.lockedOutUntil;
    const edges: number[] = [lockedOutUntil];
    let scheduled = false;
    const codes = this.codes.map((code) => {
      const terms = code.terms;
      const holder = terms.user === undefined ? null : this.users.find((user) => sameId(user.userId, terms.user!));
      edges.push(terms.start ?? 0, terms.end ?? 0, holder?.start ?? 0, holder?.end ?? 0);
      if (terms.schedule !== undefined || holder?.schedule != null) scheduled = true;
      const opens = now >= lockedOutUntil && holder !== undefined && mayUnlock(terms.user ?? '')
        && codeOpensNow(terms, this.store.usesOf(code.id) + code.usedElsewhere, holder, now).ok;
      return { id: code.id, digits: code.digits, opens };
    });
    // Weekly hours are HH:mm on some zone's wall clock: every zone's minutes start on a UTC minute.
    if (scheduled) edges.push(Math.floor(now / 60) * 60 + 60);
    const future = edges.filter((at) => at > now);
    return { codes, nextChange: future.length === 0 ? null : Math.min(...future) };
  }

  /**
   * A real lock opened with a held code (it checked the digits itself): its use counted as `enter`
   * counts one. Returns the code's holder, or null when the keypad holds no such code.
   */
  used(codeId: string): KeypadEntry & { ok: true } | null {
    const code = this.codes.find((held) => sameId(held.id, codeId));
    if (code === undefined) return null;
    this.store.countUse(code.id);
    this.wrong = [];
    return { ok: true, codeId: code.id, holder: code.terms.user === undefined ? { guest: code.terms.guest! } : { userId: code.terms.user } };
  }

  /**
   * A real lock refused an entry: digits it does not hold (a wrong entry, counted towards the
   * lockout), or (`codeId`, when the lock names the slot) a held code it holds disabled, refused
   * with the reason this keypad gives for it (`mayUnlock`: whether a lockdown lets its holder in).
   */
  refused(codeId?: string, mayUnlock: (userId: string) => boolean = () => true): KeypadEntry {
    const now = this.options.now();
    const lockedOutUntil = this.store.lockedOutUntil;
    if (now < lockedOutUntil) return { ok: false, reason: 'locked_out', lockoutUntil: lockedOutUntil, ...(codeId === undefined ? {} : { codeId }) };
    const code = codeId === undefined ? undefined : this.codes.find((held) => sameId(held.id, codeId));
    if (code === undefined) return this.wrongEntry(now);
    const terms = code.terms;
    const holder = terms.user === undefined ? null : this.users.find((user) => sameId(user.userId, terms.user!));
    if (holder === undefined) return { ok: false, reason: 'holder_inactive', codeId: code.id };
    const opens = codeOpensNow(terms, this.store.usesOf(code.id) + code.usedElsewhere, holder, now);
    if (!opens.ok) return { ok: false, reason: opens.reason, codeId: code.id };
    // It opens by this keypad's rules: the lock's slot was behind (a lockdown, or a write on its way).
    return { ok: false, reason: mayUnlock(terms.user ?? '') ? 'busy' : 'locked_down', codeId: code.id };
  }

  /** Until when the keypad refuses every entry (in the past: it does not). */
  get lockedOutUntil(): number {
    return this.store.lockedOutUntil;
  }

  /** A real lock locked its keypad out itself (its own limit of wrong codes): kept until `until`. */
  lockedOut(until: number): KeypadEntry {
    this.wrong = [];
    this.store.lockOut(Math.max(this.store.lockedOutUntil, until));
    return { ok: false, reason: 'locked_out', lockoutUntil: this.store.lockedOutUntil };
  }

  private wrongEntry(now: number): KeypadEntry {
    this.wrong = [...this.wrong.filter((at) => at > now - LOCKOUT_WINDOW_SECONDS), now];
    if (this.wrong.length < MAX_WRONG_ENTRIES) return { ok: false, reason: 'unknown_code' };
    this.wrong = [];
    this.store.lockOut(now + LOCKOUT_SECONDS);
    return { ok: false, reason: 'unknown_code', lockoutUntil: now + LOCKOUT_SECONDS };
  }

  /**
   * One entry of the config: its token an ADD_CODE for this lock and this code, signed by a user
   * the config holds as ADMIN (the signature and any certificate chain as of the token's `iat`: the
   * grant stands after the token's own `exp`, which only bounds its submission to the service), and
   * its digits opening with this lock's keypad key.
   */
  private async check(entry: ConfigCode): Promise<HeldCode | { error: string }> {
    try {
      const decoded = decodeOperationToken(entry.token);
      const { iss, sub, iat } = decoded.payload;
      if (typeof sub !== 'string' || !sameId(sub, this.options.lockId)) return { error: 'bad_request: the token is for another lock' };
      if (typeof iss !== 'string' || typeof iat !== 'number' || !Number.isFinite(iat) || iat < 0) return { error: 'bad_request: the token has no iss or iat' };
      if (iat > this.options.now() + 30) return { error: 'token_not_yet_valid: issued in the future' };
      const terms = parseAddCode(decoded.payload.operation);
      if (!sameId(terms.code, entry.id)) return { error: 'operation_mismatch: the token grants another code' };
      const signer = this.users.find((user) => sameId(user.userId, iss));
      if (signer === undefined) return { error: 'not_admin: the signer is not an administrator of this lock' };
      if (decoded.header.alg === 'EdDSA' && this.options.anchor === undefined) return { error: 'bad_signature: no trusted root provisioned' };
      const legacyPublicKey: KeyObject | undefined = decoded.header.alg === 'RS256' && signer.publicKey !== null ? (parseLegacyPublicKey(signer.publicKey) ?? undefined) : undefined;
      await verifyOperationSignature(decoded, { legacyPublicKey, trustedRoot: this.options.anchor as TrustAnchor, now: iat });
      let digits: string;
      try {
        digits = this.box.open(entry.sealed, keypadSealContext(this.options.lockId, entry.id)).toString('utf8');
      } catch {
        return { error: 'bad_code: the digits are not sealed for this lock' };
      }
      if (!/^[0-9]{4,12}$/.test(digits)) return { error: 'bad_code: not 4 to 12 digits' };
      return { id: terms.code, signer: iss, terms, digits, usedElsewhere: 0, token: entry.token };
    } catch (err) {
      if (isAppError(err)) return { error: `${err.error}: ${err.message}` };
      throw err;
    }
  }
}
