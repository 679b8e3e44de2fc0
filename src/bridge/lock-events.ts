/** What a real lock's bolt tells the lock's endpoint (src/bridge/run-bridge.ts wires it). */
export interface LockEvents {
  /** A reported value changed: publish the state. */
  changed(): void;
  /** The door sensor changed: its event, then the state. */
  doorChanged(open: boolean): void;
  /** The lock can (or can no longer) be reached: its presence. */
  reachable(reachable: boolean): void;
  /** Someone at the door moved the bolt (a code at the keypad, with its user-code slot when told; a hand): reported to the service. */
  operated(operation: { source: 'keypad' | 'manual'; locked: boolean; slot?: number }): void;
  /** The lock refused a code typed at its keypad (`wrong`; `slot` when it names the slot of a code it holds disabled), or locked its keypad out itself after too many (`lockout`). */
  keypadRefused(kind: 'wrong' | 'lockout', slot?: number): void;
  /**
   * The lock said how many digits its keypad takes (a Matter lock's Min/MaxPINCodeLength), or that
   * it has no keypad (null: a Matter lock without PIN users): announced to the service.
   */
  keypadDescribed(digits: { min: number; max: number } | null): void;
}
