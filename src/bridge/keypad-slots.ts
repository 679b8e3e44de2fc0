import type { KeypadMirror, KeypadView } from '../lock-edge/keypad.js';
import type { LockLog } from '../lock-edge/lock-endpoint.js';
import { prepareStoredFile, readStoredFile, replaceStoredFile } from '../lock-edge/stored-file.js';

/**
 * A real lock's own keypad, whatever its stack (Z-Wave User Code slots, Matter users with a PIN
 * credential): which verified code sits in which slot, kept in the bridge's data directory so a
 * restart keeps the mapping (never the digits); each code written enabled only while it may open
 * (LockEndpoint's Keypad decides: window, schedule on its zone's wall clock, uses, holder's
 * access, lockdown, lockout), disabled otherwise, cleared once it leaves the config. Locks without
 * schedules of their own are enabled and disabled at each edge: a timer at the view's next change.
 * A slot the lock did not take is said in `errors` (the lock's `state.codeErrors`) and tried again;
 * a lock without a keypad takes none (`no_keypad`), and is not asked again until the codes change.
 */

/** What a stack does to its lock's keypad. */
export interface SlotWriter {
  /** How many slots (numbered from 1) the lock has, 0 when it has no keypad; rejects while it cannot tell. */
  slotCount(): Promise<number>;
  /** Puts digits into `slot`, enabled or disabled, or empties it (null); rejects when the lock did not take it. */
  write(slot: number, content: { digits: string; enabled: boolean } | null): Promise<void>;
}

export interface KeypadSlotsOptions {
  /** Where the mapping is kept (JSON: slot, code id, enabled; no digits). */
  file: string;
  writer: SlotWriter;
  now: () => number;
  log: LockLog;
  /** Asks for `update` again with a fresh view (at a time edge, or to retry a failed write). */
  refresh: () => void;
}

interface SlotEntry {
  slot: number;
  code: string;
  enabled: boolean;
}

/** How soon a failed write is tried again, seconds. */
const RETRY_SECONDS = 30;
/** Why a code is not on a lock that has no keypad: not tried again (nothing will change it but the lock). */
const NO_KEYPAD = 'no_keypad: the lock has no keypad';
/** The longest a timer waits (a setTimeout of more than 2^31 ms fires at once); it simply looks again. */
const MAX_WAIT_SECONDS = 86_400;

export class KeypadSlots implements KeypadMirror {
  private slots: SlotEntry[];
  private failed = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly options: KeypadSlotsOptions) {
    const text = readStoredFile(options.file);
    this.slots = text === null ? [] : parseSlots(text);
    prepareStoredFile(options.file);
  }

  get errors(): Array<{ code: string; error: string }> {
    return [...this.failed].map(([code, error]) => ({ code, error }));
  }

  codeAt(slot: number): string | undefined {
    return this.slots.find((entry) => entry.slot === slot)?.code;
  }

  /** One update at a time, in the order asked (the last view asked for is the last written). */
  update(view: KeypadView): Promise<void> {
    const run = this.running.then(() => this.apply(view));
    this.running = run.catch(() => undefined);
    return run.catch((err: unknown) => this.options.log('keypad_slots_error', { message: withoutDigits(err) }));
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private async apply(view: KeypadView): Promise<void> {
    if (this.closed) return;
    const wanted = new Map(view.codes.map((code) => [code.id, code]));
    const failed = new Map<string, string>();
    // Codes gone from the config first: their slots are freed for the new ones.
    // After one write the lock did not take, the rest wait for the retry: an unreachable lock would hold each for its whole timeout (and commands behind the config).
    let stale = false;
    for (const entry of this.slots.filter((e) => !wanted.has(e.code))) {
      if (!stale && (await this.write(entry, null))) this.save(this.slots.filter((e) => e !== entry));
      else stale = true;
    }
    for (const code of wanted.values()) {
      const held = this.slots.find((entry) => entry.code === code.id);
      if (held !== undefined && held.enabled === code.opens) continue;
      if (stale) {
        failed.set(code.id, 'slot_write_failed: the lock did not take the code');
        continue;
      }
      const slot = held?.slot ?? (await this.freeSlot());
      if (typeof slot === 'string') {
        failed.set(code.id, slot);
        continue;
      }
      const entry = { slot, code: code.id, enabled: code.opens };
      if (await this.write(entry, code.digits)) this.save([...this.slots.filter((e) => e.slot !== slot), entry]);
      else {
        failed.set(code.id, 'slot_write_failed: the lock did not take the code');
        stale = true;
      }
    }
    this.failed = failed;
    this.schedule(view.nextChange, stale || [...failed.values()].some((error) => error !== NO_KEYPAD));
  }

  private async write(entry: SlotEntry, digits: string | null): Promise<boolean> {
    try {
      await this.options.writer.write(entry.slot, digits === null ? null : { digits, enabled: entry.enabled });
      this.options.log(digits === null ? 'keypad_slot_cleared' : 'keypad_slot_written', { slot: entry.slot, code: entry.code, ...(digits === null ? {} : { enabled: entry.enabled }) });
      return true;
    } catch (err) {
      this.options.log('keypad_slot_failed', { slot: entry.slot, code: entry.code, message: withoutDigits(err) });
      return false;
    }
  }

  /** The lowest slot no code holds, or why there is none. */
  private async freeSlot(): Promise<number | string> {
    let count: number;
    try {
      count = await this.options.writer.slotCount();
    } catch (err) {
      this.options.log('keypad_slots_unknown', { message: withoutDigits(err) });
      return 'lock_unreachable: the lock has not said how many codes it holds';
    }
    if (count === 0) return NO_KEYPAD;
    for (let slot = 1; slot <= count; slot += 1) if (!this.slots.some((entry) => entry.slot === slot)) return slot;
    return `no_free_slot: the lock holds ${count} codes`;
  }

  private schedule(nextChange: number | null, retry: boolean): void {
    clearTimeout(this.timer);
    const now = this.options.now();
    const at = Math.min(nextChange ?? Number.POSITIVE_INFINITY, retry ? now + RETRY_SECONDS : Number.POSITIVE_INFINITY, now + MAX_WAIT_SECONDS);
    if (this.closed || !Number.isFinite(at)) return;
    this.timer = setTimeout(() => this.options.refresh(), Math.max(0, (at - now) * 1000) + 50);
    this.timer.unref();
  }

  /** Written (a temporary file renamed over it) before it is relied on, so a restart finds what the lock holds. */
  private save(slots: SlotEntry[]): void {
    replaceStoredFile(this.options.file, JSON.stringify({ slots }));
    this.slots = slots;
  }
}

function parseSlots(text: string): SlotEntry[] {
  const value = JSON.parse(text) as { slots?: unknown };
  if (!Array.isArray(value.slots)) return [];
  return value.slots.filter((e): e is SlotEntry => typeof e === 'object' && e !== null && Number.isInteger((e as SlotEntry).slot) && typeof (e as SlotEntry).code === 'string' && typeof (e as SlotEntry).enabled === 'boolean');
}

/** A stack's error message for the log, with any run of digits left out (it might echo a code). */
export function withoutDigits(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/[0-9]{4,}/g, '…');
}
