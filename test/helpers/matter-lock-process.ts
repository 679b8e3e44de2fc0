/**
 * matter.js's own virtual door lock, for the bridge's tests: a ServerNode with a DoorLockDevice
 * (DoorLockServer with the door position sensor) on 127.0.0.1, commissionable with a known setup
 * code, in a process of its own (test/helpers/matter-lock.ts starts it) so a test can take it away
 * and bring it back with its storage (it keeps its fabrics). argv[2]: JSON `{ port, storage,
 * passcode, discriminator }`. Prints `{"ready":true,"manualPairingCode":…}` once announced; reads
 * JSON lines on stdin (`{"do":"door","open":true}`, `{"do":"slow","ms":N}`) and answers
 * `{"done":seq}`.
 */
import type { DoorLock as DoorLockCluster } from '@matter/main/clusters';
import { config } from '@matter/nodejs/config';

config.loadProcessArgv = false;
config.loadProcessEnv = false;
config.loadConfigFile = false;

const { createInterface } = await import('node:readline');
const { Environment, Logger, LogLevel, ServerNode, VendorId } = await import('@matter/main');
const { DoorLockDevice } = await import('@matter/main/devices');
const { DoorLockServer } = await import('@matter/main/behaviors');
const { DoorLock } = await import('@matter/main/clusters');

interface Options { port: number; storage: string; passcode: number; discriminator: number }
const options = JSON.parse(process.argv[2] ?? '{}') as Options;
Logger.level = LogLevel.ERROR;
Environment.default.vars.set('storage.path', options.storage);

/** How long the next lock or unlock takes (a slow motor, a lock half away); 0: at once. */
let slowMs = 0;

class VirtualLockServer extends DoorLockServer.with(DoorLock.Feature.DoorPositionSensor) {
  override lockDoor(request: DoorLockCluster.LockDoorRequest) {
    return slowMs === 0 ? super.lockDoor(request) : this.moveLater(DoorLock.LockState.Locked);
  }

  override unlockDoor(request: DoorLockCluster.UnlockDoorRequest) {
    return slowMs === 0 ? super.unlockDoor(request) : this.moveLater(DoorLock.LockState.Unlocked);
  }

  /** A slow lock answers at once and moves its bolt later, as a lock that got the command late would. */
  private moveLater(state: number): void {
    const delay = slowMs;
    slowMs = 0;
    const endpoint = this.endpoint;
    setTimeout(() => void endpoint.setStateOf(VirtualLockServer, { lockState: state }), delay);
  }
}

const node = await ServerNode.create({
  id: `virtual-lock-${options.port}`,
  network: { port: options.port, listeningAddressIpv4: '127.0.0.1' },
  commissioning: { passcode: options.passcode, discriminator: options.discriminator },
  productDescription: { name: 'Virtual lock', deviceType: DoorLockDevice.deviceType },
  basicInformation: { vendorName: 'Latchkey test', vendorId: VendorId(0xfff1), nodeLabel: 'Virtual lock', productName: 'Virtual lock', productLabel: 'Virtual lock', productId: 0x8000, serialNumber: `lock-${options.port}`, uniqueId: `lock-${options.port}` },
});
const lock = await node.add(DoorLockDevice.with(VirtualLockServer), {
  id: 'lock',
  doorLock: {
    lockType: DoorLock.LockType.DeadBolt,
    actuatorEnabled: true,
    lockState: DoorLock.LockState.Locked,
    doorState: DoorLock.DoorState.DoorClosed,
    operatingMode: DoorLock.OperatingMode.Normal,
    supportedOperatingModes: { normal: true, vacation: false, privacy: false, noRemoteLockUnlock: false, passage: false, alwaysSet: 2047 },
  },
});
await node.start();
process.stdout.write(`${JSON.stringify({ ready: true, ...node.state.commissioning.pairingCodes })}\n`);

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const request = JSON.parse(line) as { seq: number; do: 'door'; open: boolean } | { seq: number; do: 'slow'; ms: number };
  const acted = request.do === 'door'
    ? lock.setStateOf(VirtualLockServer, { doorState: request.open ? DoorLock.DoorState.DoorOpen : DoorLock.DoorState.DoorClosed })
    : Promise.resolve(void (slowMs = request.ms));
  acted.then(() => process.stdout.write(`${JSON.stringify({ done: request.seq })}\n`), (err: unknown) => process.stdout.write(`${JSON.stringify({ failed: request.seq, message: String(err) })}\n`));
});

async function stop(): Promise<void> {
  lines.close();
  await node.close();
  process.exit(0);
}
process.once('SIGTERM', () => void stop());
