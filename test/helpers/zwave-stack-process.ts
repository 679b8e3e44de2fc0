/**
 * Z-Wave JS itself, for the bridge's tests: a real zwave-js Driver on Z-Wave JS's own mock serial
 * port, with its MockController and mock door-lock nodes (@zwave-js/testing, zwave-js's own
 * Door Lock, User Code and Notification behaviours, a Battery answer), and a real Z-Wave JS Server
 * (ZwavejsServer) in front on 127.0.0.1. Nothing of Latchkey's sits between the bridge and it.
 *
 * Run as its own process (test/helpers/zwave-stack.ts starts it), so a test can take the whole
 * stack away and bring it back. argv[2]: JSON `{ port, nodeIds }`. Prints `{"ready":true,"port":N}`
 * once every node is interviewed; then reads JSON lines on stdin that act on a node, as a person at
 * the door or the radio would, and answers each with `{"done":N}` (N: the line's `seq`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BatteryCCGet, BatteryCCReport, DoorLockCCOperationReport, DoorLockCCOperationSet, DoorLockMode, NoOperationCC, NotificationCCReport } from '@zwave-js/cc';
import { CommandClasses, Duration } from '@zwave-js/core';
import { ZwavejsServer } from '@zwave-js/server';
import { ccCaps, createMockZWaveRequestFrame, MockController, MockNode, MockZWaveFrameType, type MockNodeBehavior } from '@zwave-js/testing';
import type { NodeAction } from './zwave-stack.js';
import { createAndStartDriverWithMockPort, createDefaultMockControllerBehaviors, createDefaultMockNodeBehaviors } from 'zwave-js/Testing';

interface StackOptions { port: number; nodeIds: number[] }

type Action = NodeAction;

const ACCESS_CONTROL = 0x06;
const HOME_SECURITY = 0x07;
// Access Control events (Z-Wave notification types): manual lock/unlock, keypad lock/unlock, jammed, door open/closed.
const MANUAL_LOCK = 1;
const MANUAL_UNLOCK = 2;
const KEYPAD_LOCK = 5;
const KEYPAD_UNLOCK = 6;
const LOCK_JAMMED = 11;
const INVALID_CREDENTIAL = 0x32;
/** User Code slots the mock lock has. */
const SLOTS = 20;
const CODE_ENABLED = 1;
const DOOR_OPEN = 22;
const DOOR_CLOSED = 23;
const TAMPER_COVER_REMOVED = 3;
const CURRENT_MODE = 'DoorLock_currentMode';

const options = JSON.parse(process.argv[2] ?? '{}') as StackOptions;
const nodes = new Map<number, MockNode>();

/** A lock that is away answers nothing, and acknowledges nothing. */
const awayBehaviour: MockNodeBehavior = {
  handleCC: (_controller, self) => (self.state.get('away') === true ? { action: 'stop' } : undefined),
};

const batteryBehaviour: MockNodeBehavior = {
  handleCC(controller, self, received) {
    if (!(received instanceof BatteryCCGet)) return undefined;
    return { action: 'sendCC', cc: new BatteryCCReport({ nodeId: controller.ownNodeId, level: (self.state.get('battery') as number | undefined) ?? 90 }) };
  },
};

/** A slow lock: takes the command, acts on it `ms` later and reports then. */
const slowBehaviour: MockNodeBehavior = {
  handleCC(controller, self, received) {
    const ms = self.state.get('slowMs') as number | undefined;
    if (ms === undefined || !(received instanceof DoorLockCCOperationSet)) return undefined;
    self.state.delete('slowMs');
    setTimeout(() => {
      self.state.set(CURRENT_MODE, received.mode);
      void self.sendToController(createMockZWaveRequestFrame(operationReport(controller.ownNodeId, received.mode), { ackRequested: false }));
    }, ms);
    return { action: 'stop' };
  },
};

/**
 * Pings (No Operation frames) and moves that lock it (Door Lock Operation Sets, secured) the node leaves
 * unacknowledged, as frames lost on the radio: a MockNode acknowledges a frame before any
 * behaviour sees it, so the frame is dropped before that.
 */
function missFrames(node: MockNode): void {
  const receive = node.onControllerFrame.bind(node);
  node.onControllerFrame = (frame) => {
    const kind = frame.type !== MockZWaveFrameType.Request ? undefined
      : frame.payload instanceof NoOperationCC ? 'missPings'
      : frame.payload instanceof DoorLockCCOperationSet && frame.payload.mode === DoorLockMode.Secured ? 'missLocks' : undefined;
    const missing = kind === undefined ? 0 : ((node.state.get(kind) as number | undefined) ?? 0);
    if (kind !== undefined && missing > 0) {
      node.state.set(kind, missing - 1);
      return Promise.resolve();
    }
    return receive(frame);
  };
}

function operationReport(nodeId: number, mode: DoorLockMode): DoorLockCCOperationReport {
  return new DoorLockCCOperationReport({
    nodeId,
    currentMode: mode,
    targetMode: mode,
    outsideHandlesCanOpenDoor: [true, true, true, true],
    insideHandlesCanOpenDoor: [true, true, true, true],
    duration: new Duration(0, 'seconds'),
  });
}

function notify(node: MockNode, notificationType: number, notificationEvent: number, eventParameters?: Uint8Array<ArrayBuffer>): Promise<unknown> {
  const cc = new NotificationCCReport({ nodeId: node.controller.ownNodeId, notificationType, notificationEvent, ...(eventParameters ? { eventParameters } : {}) });
  return node.sendToController(createMockZWaveRequestFrame(cc, { ackRequested: false }));
}

/** The bolt moved by hand or keypad: its state report, then the notification saying how. */
async function moveBolt(node: MockNode, locked: boolean, event: number, slot?: number): Promise<void> {
  const mode = locked ? DoorLockMode.Secured : DoorLockMode.Unsecured;
  node.state.set(CURRENT_MODE, mode);
  await node.sendToController(createMockZWaveRequestFrame(operationReport(node.controller.ownNodeId, mode), { ackRequested: false }));
  await notify(node, ACCESS_CONTROL, event, slot === undefined ? undefined : Uint8Array.from([slot]));
}

/**
 * Digits typed at the keypad, checked as the lock's firmware would: against its User Code slots as
 * Z-Wave JS's own User Code behaviour keeps them (UserCode_userCode_N, UserCode_userIdStatus_N).
 */
function typeCode(node: MockNode, digits: string): Promise<unknown> {
  for (let slot = 1; slot <= SLOTS; slot += 1) {
    const code = node.state.get(`UserCode_userCode_${slot}`) as string | Uint8Array | undefined;
    const held = typeof code === 'string' ? code : code === undefined ? undefined : Buffer.from(code).toString('ascii');
    if (held === digits && node.state.get(`UserCode_userIdStatus_${slot}`) === CODE_ENABLED) return moveBolt(node, false, KEYPAD_UNLOCK, slot);
  }
  return notify(node, ACCESS_CONTROL, INVALID_CREDENTIAL);
}

async function act(node: MockNode, action: Action): Promise<void> {
  switch (action.do) {
    case 'door': return void (await notify(node, ACCESS_CONTROL, action.open ? DOOR_OPEN : DOOR_CLOSED));
    case 'code': return void (await typeCode(node, action.digits));
    case 'keypad': return moveBolt(node, action.locked, action.locked ? KEYPAD_LOCK : KEYPAD_UNLOCK, action.slot);
    case 'manual': return moveBolt(node, action.locked, action.locked ? MANUAL_LOCK : MANUAL_UNLOCK);
    case 'jam': return void (await notify(node, ACCESS_CONTROL, LOCK_JAMMED));
    case 'tamper': return void (await notify(node, HOME_SECURITY, TAMPER_COVER_REMOVED));
    case 'battery':
      node.state.set('battery', action.level);
      return void (await node.sendToController(createMockZWaveRequestFrame(new BatteryCCReport({ nodeId: node.controller.ownNodeId, level: action.level }), { ackRequested: false })));
    case 'away':
      node.state.set('away', true);
      node.autoAckControllerFrames = false;
      return;
    case 'back':
      node.state.delete('away');
      node.autoAckControllerFrames = true;
      return;
    case 'slow':
      node.state.set('slowMs', action.ms);
      return;
    case 'missPings':
    case 'missLocks':
      node.state.set(action.do, action.count);
      return;
  }
}

async function createLockNode(controller: MockController, id: number): Promise<MockNode> {
  const node = await MockNode.create({
    id,
    controller,
    capabilities: {
      commandClasses: [
        CommandClasses.Version,
        CommandClasses['Manufacturer Specific'],
        ccCaps({ ccId: CommandClasses['Door Lock'], isSupported: true, version: 4, doorSupported: true, boltSupported: true, latchSupported: false }),
        ccCaps({ ccId: CommandClasses['User Code'], isSupported: true, version: 1, numUsers: SLOTS }),
        ccCaps({
          ccId: CommandClasses.Notification, isSupported: true, version: 8, supportsV1Alarm: false,
          notificationTypesAndEvents: {
            [ACCESS_CONTROL]: [MANUAL_LOCK, MANUAL_UNLOCK, KEYPAD_LOCK, KEYPAD_UNLOCK, LOCK_JAMMED, DOOR_OPEN, DOOR_CLOSED, INVALID_CREDENTIAL],
            [HOME_SECURITY]: [TAMPER_COVER_REMOVED],
          },
        }),
        { ccId: CommandClasses.Battery, isSupported: true, version: 1 },
      ],
    },
  });
  node.state.set(CURRENT_MODE, DoorLockMode.Secured);
  node.defineBehavior(...createDefaultMockNodeBehaviors());
  // A later call takes precedence over an earlier one; within a call, the first listed answers first.
  node.defineBehavior(awayBehaviour, slowBehaviour, batteryBehaviour);
  missFrames(node);
  controller.addNode(node);
  return node;
}

const cacheDir = await mkdtemp(join(tmpdir(), 'latchkey-zwave-'));
const { driver, continueStartup, mockPort, serial } = await createAndStartDriverWithMockPort({
  storage: { cacheDir },
  testingHooks: { skipFirmwareIdentification: true },
});
const controller = await MockController.create({ homeId: 0x7e570001, ownNodeId: 1, mockPort, serial });
controller.defineBehavior(...createDefaultMockControllerBehaviors());
for (const id of options.nodeIds) nodes.set(id, await createLockNode(controller, id));
const driverReady = new Promise<void>((resolve) => driver.once('driver ready', () => resolve()));
continueStartup();
await driverReady;
await new Promise<void>((resolve) => {
  if (driver.controller.nodes.size > 0 && [...driver.controller.nodes.values()].every((node) => node.ready)) resolve();
  else driver.once('all nodes ready', () => resolve());
});
const server = new ZwavejsServer(driver, { port: options.port, host: '127.0.0.1', enableDNSServiceDiscovery: false, logger: { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined } });
await server.start(false);
process.stdout.write(`${JSON.stringify({ ready: true, port: options.port })}\n`);

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const request = JSON.parse(line) as Action & { node: number; seq: number };
  const node = nodes.get(request.node);
  (node === undefined ? Promise.reject(new Error(`no node ${request.node}`)) : act(node, request))
    .then(() => process.stdout.write(`${JSON.stringify({ done: request.seq })}\n`))
    .catch((err: unknown) => process.stdout.write(`${JSON.stringify({ failed: request.seq, message: String(err) })}\n`));
});

async function stop(): Promise<void> {
  lines.close();
  await server.destroy();
  await driver.destroy();
  await rm(cacheDir, { recursive: true, force: true });
  process.exit(0);
}
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
