/**
 * matter.js's own virtual door locks, for the bridge's tests and benchmarks: ServerNodes, each
 * with a DoorLockDevice (DoorLockServer with the door position sensor) on 127.0.0.1,
 * commissionable with a known setup code, all in one process of their own (one matter.js
 * environment; each node its own UDP port and its own storage under `storage`), so a test can
 * take them away and bring them back with their storage (they keep their fabrics), and a
 * benchmark can run fifty without fifty processes. test/helpers/matter-lock.ts starts it.
 *
 * argv[2]: JSON `{ storage, locks: [{ port, passcode, discriminator, pins? }] }` (`pins: false`: a
 * lock without PIN users, so without a keypad; its door alone can be acted on), or one lock as
 * `{ port, storage, passcode, discriminator }`. Prints `{"ready":true,"locks":[{port,
 * manualPairingCode, qrPairingCode}], …the first lock's codes}` once every lock is announced;
 * reads JSON lines on stdin (`{"do":"door","open":true}`, `{"do":"slow","ms":N}`,
 * `{"do":"fabrics"}`, `{"do":"keypad","pin":"…"}`, `{"do":"users"}`, `{"do":"timedWindows"}`, each
 * with `"lock": index`, default 0) and answers `{"done":seq}` (with `"value"` for `fabrics`: how many
 * fabrics the lock belongs to; for `keypad`: `unlocked` or the refusal; for `users`: each user's
 * index, status and PIN credential indices, never the PINs; for `timedWindows`: the window of each
 * timed request the lock was sent, milliseconds, oldest first).
 *
 * Each lock (but one with `pins: false`) keeps users with PIN credentials (matter.js's DoorLockServer with the PIN credential
 * and user features: SetUser, SetCredential, ClearUser…, the PINs encrypted in its storage), 10 of
 * them, PINs of 4 to 8 digits, and its own lockout (WrongCodeEntryLimit, UserCodeTemporaryDisableTime).
 * `keypad` is someone typing digits on it: the lock checks them against its PIN credentials itself,
 * as its firmware would, and unlocks with a LockOperation (source keypad, the user's index and the
 * credential) or refuses with a LockOperationError (invalid credential; a disabled user's PIN:
 * DisabledUserDenied with that user), and after WrongCodeEntryLimit wrong codes raises the
 * WrongCodeEntryLimit alarm and refuses every entry for UserCodeTemporaryDisableTime seconds.
 */
import type { DoorLock as DoorLockCluster } from '@matter/main/clusters';
import { config } from '@matter/nodejs/config';

config.loadProcessArgv = false;
config.loadProcessEnv = false;
config.loadConfigFile = false;

const { createInterface } = await import('node:readline');
const { Environment, InteractionServer, Logger, LogLevel, ServerNode, VendorId } = await import('@matter/main');
const { DoorLockDevice } = await import('@matter/main/devices');
const { DoorLockServer } = await import('@matter/main/behaviors');
const { DoorLock } = await import('@matter/main/clusters');
const { Bytes } = await import('@matter/main');

/** `pins: false`: a lock without PIN users (no PIN credential or user feature): it has no keypad. */
interface LockSpec { port: number; passcode: number; discriminator: number; pins?: boolean }
type Options = { storage: string; locks: LockSpec[] } | (LockSpec & { storage: string });
type Request = { seq: number; lock?: number } & ({ do: 'door'; open: boolean } | { do: 'slow'; ms: number } | { do: 'fabrics' } | { do: 'keypad'; pin: string } | { do: 'users' } | { do: 'timedWindows' });

const options = JSON.parse(process.argv[2] ?? '{}') as Options;
const specs = 'locks' in options ? options.locks : [options];
Logger.level = LogLevel.ERROR;
Environment.default.vars.set('storage.path', options.storage);

/** How long each lock's next lock or unlock takes (a slow motor, a lock half away); absent: at once. */
const slowMs = new Map<object, number>();
/** Until when (ms since the epoch) each lock's keypad refuses every entry, after too many wrong codes. */
const disabledUntil = new Map<object, number>();
/** Wrong codes typed on each lock since its last right one. */
const wrongCodes = new Map<object, number>();

/** The window of each timed request (TimedRequest's timeout, ms) each lock's interaction server was sent, oldest first. */
const timedWindows = new WeakMap<object, number[]>();
// Only watched: matter.js's own handling (the window timed, a late invoke refused with TIMEOUT) follows.
const handleTimedRequest = InteractionServer.prototype.handleTimedRequest;
InteractionServer.prototype.handleTimedRequest = function (this: InstanceType<typeof InteractionServer>, ...args: Parameters<typeof handleTimedRequest>) {
  const windows = timedWindows.get(this) ?? [];
  timedWindows.set(this, windows);
  windows.push(Number(args[1].timeout));
  return handleTimedRequest.apply(this, args);
};

const { OperationSource, LockOperationType, OperationError, CredentialType, UserStatus, AlarmCode } = DoorLock;

class VirtualLockServer extends DoorLockServer.with(DoorLock.Feature.DoorPositionSensor, DoorLock.Feature.PinCredential, DoorLock.Feature.User) {
  /** Digits typed on the lock's keypad, checked by the lock alone against the PIN credentials it holds. */
  keypad(pin: string): string {
    const endpoint = this.endpoint;
    const auth = this.auth;
    const typed = new TextEncoder().encode(pin);
    if (Date.now() < (disabledUntil.get(endpoint) ?? 0)) return this.keypadError(OperationError.InvalidCredential, null, 'locked_out');
    const credential = auth.credentials.find((c) => c.credentialType === CredentialType.Pin && Bytes.areEqual(auth.decrypt(c.credentialData), typed));
    const userIndex = credential === undefined ? null : auth.findUserIndexForCredential(CredentialType.Pin, credential.credentialIndex);
    const user = userIndex === null ? undefined : auth.findUser(userIndex);
    if (credential === undefined || user === undefined) {
      const wrong = (wrongCodes.get(endpoint) ?? 0) + 1;
      wrongCodes.set(endpoint, wrong);
      if (wrong >= this.state.wrongCodeEntryLimit) {
        wrongCodes.delete(endpoint);
        disabledUntil.set(endpoint, Date.now() + this.state.userCodeTemporaryDisableTime * 1000);
        this.events.doorLockAlarm.emit({ alarmCode: AlarmCode.WrongCodeEntryLimit }, this.context);
      }
      return this.keypadError(OperationError.InvalidCredential, null, 'invalid_credential');
    }
    const credentials = [{ credentialType: CredentialType.Pin, credentialIndex: credential.credentialIndex }];
    if (user.userStatus !== UserStatus.OccupiedEnabled) return this.keypadError(OperationError.DisabledUserDenied, user.userIndex, 'disabled_user', credentials);
    wrongCodes.delete(endpoint);
    this.state.lockState = DoorLock.LockState.Unlocked;
    this.events.lockOperation.emit({ lockOperationType: LockOperationType.Unlock, operationSource: OperationSource.Keypad, userIndex: user.userIndex, fabricIndex: null, sourceNode: null, credentials }, this.context);
    return 'unlocked';
  }

  private keypadError(error: DoorLockCluster.OperationError, userIndex: number | null, said: string, credentials: DoorLockCluster.Credential[] | null = null): string {
    this.events.lockOperationError.emit({ lockOperationType: LockOperationType.Unlock, operationSource: OperationSource.Keypad, operationError: error, userIndex, fabricIndex: null, sourceNode: null, credentials }, this.context);
    return said;
  }

  override lockDoor(request: DoorLockCluster.LockDoorRequest) {
    return slowMs.has(this.endpoint) ? this.moveLater(DoorLock.LockState.Locked) : super.lockDoor(request);
  }

  override unlockDoor(request: DoorLockCluster.UnlockDoorRequest) {
    return slowMs.has(this.endpoint) ? this.moveLater(DoorLock.LockState.Unlocked) : super.unlockDoor(request);
  }

  /** A slow lock answers at once and moves its bolt later, as a lock that got the command late would. */
  private moveLater(state: number): void {
    const endpoint = this.endpoint;
    const delay = slowMs.get(endpoint)!;
    slowMs.delete(endpoint);
    setTimeout(() => void endpoint.setStateOf(VirtualLockServer, { lockState: state }), delay);
  }
}

/** A lock without a keypad: the Door Lock cluster with the door position sensor alone. */
class PlainLockServer extends DoorLockServer.with(DoorLock.Feature.DoorPositionSensor) {}

const PLAIN_LOCK = {
  lockType: DoorLock.LockType.DeadBolt,
  actuatorEnabled: true,
  lockState: DoorLock.LockState.Locked,
  doorState: DoorLock.DoorState.DoorClosed,
  operatingMode: DoorLock.OperatingMode.Normal,
  supportedOperatingModes: { normal: true, vacation: false, privacy: false, noRemoteLockUnlock: false, passage: false, alwaysSet: 2047 },
};

async function createLock({ port, passcode, discriminator, pins = true }: LockSpec) {
  const node = await ServerNode.create({
    id: `virtual-lock-${port}`,
    network: { port, listeningAddressIpv4: '127.0.0.1' },
    commissioning: { passcode, discriminator },
    productDescription: { name: 'Virtual lock', deviceType: DoorLockDevice.deviceType },
    basicInformation: { vendorName: 'Latchkey test', vendorId: VendorId(0xfff1), nodeLabel: 'Virtual lock', productName: 'Virtual lock', productLabel: 'Virtual lock', productId: 0x8000, serialNumber: `lock-${port}`, uniqueId: `lock-${port}` },
  });
  if (!pins) {
    const plain = await node.add(DoorLockDevice.with(PlainLockServer), { id: 'lock', doorLock: PLAIN_LOCK });
    await node.start();
    return { node, port, plain, lock: undefined };
  }
  const lock = await node.add(DoorLockDevice.with(VirtualLockServer), {
    id: 'lock',
    doorLock: {
      ...PLAIN_LOCK,
      numberOfTotalUsersSupported: 10,
      numberOfPinUsersSupported: 10,
      numberOfCredentialsSupportedPerUser: 1,
      credentialRulesSupport: { single: true, dual: false, tri: false },
      minPinCodeLength: 4,
      maxPinCodeLength: 8,
      // The lock's own lockout; the bridge sets them to what Latchkey's keypad does.
      wrongCodeEntryLimit: 3,
      userCodeTemporaryDisableTime: 60,
    },
  });
  await node.start();
  return { node, port, lock, plain: undefined };
}

const locks: Array<Awaited<ReturnType<typeof createLock>>> = [];
for (const spec of specs) locks.push(await createLock(spec));
const codes = locks.map(({ node, port }) => ({ port, ...node.state.commissioning.pairingCodes }));
process.stdout.write(`${JSON.stringify({ ready: true, ...codes[0], locks: codes })}\n`);

async function act(request: Request): Promise<unknown> {
  const target = locks[request.lock ?? 0];
  if (target === undefined) throw new Error(`no lock ${request.lock}`);
  // What only a lock with PIN users has.
  const keypadLock = () => target.lock ?? (() => { throw new Error(`a lock without PIN users has no ${request.do}`); })();
  switch (request.do) {
    case 'door': {
      const doorState = request.open ? DoorLock.DoorState.DoorOpen : DoorLock.DoorState.DoorClosed;
      return target.lock === undefined ? target.plain.setStateOf(PlainLockServer, { doorState }) : target.lock.setStateOf(VirtualLockServer, { doorState });
    }
    case 'slow':
      return void slowMs.set(keypadLock(), request.ms);
    case 'fabrics':
      return fabricsOf(target.node);
    case 'keypad':
      return keypadLock().act((agent) => agent.get(VirtualLockServer).keypad(request.pin));
    case 'timedWindows':
      return timedWindows.get(target.node.env.get(InteractionServer)) ?? [];
    case 'users':
      return keypadLock().act((agent) => agent.get(VirtualLockServer).state.users.map((user) => ({ userIndex: user.userIndex, userStatus: user.userStatus, pins: user.credentials.map((c) => c.credentialIndex) })));
  }
}

/** A lock taken off its last fabric erases itself and starts again; asked meanwhile, it answers once it is back. */
async function fabricsOf(node: (typeof locks)[number]['node']): Promise<number> {
  for (;;) {
    try {
      return node.state.operationalCredentials.commissionedFabrics;
    } catch (err) {
      if (!String(err).includes('is not initialized')) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const request = JSON.parse(line) as Request;
  act(request).then(
    (value) => process.stdout.write(`${JSON.stringify({ done: request.seq, ...(value === undefined ? {} : { value }) })}\n`),
    (err: unknown) => process.stdout.write(`${JSON.stringify({ failed: request.seq, message: String(err) })}\n`),
  );
});

async function stop(): Promise<void> {
  lines.close();
  // One after another: they share one mDNS service, which a lock resetting itself (unpaired) still needs.
  for (const { node } of locks) await node.close();
  process.exit(0);
}
process.once('SIGTERM', () => void stop());
