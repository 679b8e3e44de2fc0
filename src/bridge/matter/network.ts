import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { CommissioningController } from '@project-chip/matter.js';
import type { PairedNode } from '@project-chip/matter.js/device';
import type { BridgedLockConfig } from '../../config/bridge.js';
import type { MatterApi, MatterLock } from './matter-lock.js';

/**
 * The bridge as a Matter controller (matter.js, `@matter/main`): pairs each Matter lock from its
 * setup code (manual pairing code or QR payload; a known address when discovery cannot find it;
 * a few at a time, and again later when it fails), keeps the node ids it paired in the data directory (`matter/paired.json`) and matter.js's own
 * storage beside them (never `~/.matter`), connects each node (matter.js keeps the session and the
 * subscription; the MatterLock subscribes again when matter.js would not soon) and hands it to its MatterLock.
 *
 * matter.js is loaded here only, and told first (`@matter/nodejs/config`) to read no `--x=y`
 * arguments, no `MATTER_*` variables and no config file, and to trap no signals: the bridge's
 * configuration is its own, and it shuts down on SIGTERM itself.
 */

export interface MatterNetwork {
  close(): Promise<void>;
  /** Decommissions the lock's node (removes the bridge's fabric from it) and forgets it. */
  unpair(lockId: string): Promise<Unpairing>;
}

export interface Unpairing {
  /** False: the bridge had not paired that lock. */
  unpaired: boolean;
  /** The lock itself removed the bridge's fabric; false when it could not be reached (then it is only forgotten). */
  decommissioned: boolean;
}

interface MatterOptions {
  dataDir: string;
  port: number;
  pingSeconds: number;
  logger: Logger;
  locks: Array<{ config: BridgedLockConfig; lock: MatterLock }>;
}

type Paired = Record<string, string>;

/**
 * How many locks are paired at once: pairing (PASE) is CPU-heavy on both ends, and fifty at once
 * on a small box make each answer late, be sent again, and fail (measured: bench/bridge-scale.ts).
 */
const PAIRING_AT_ONCE = 4;
/** A lock that could not be paired or connected is tried again after this, doubling up to the maximum. */
const RETRY_FIRST_MS = 5_000;
const RETRY_MAX_MS = 60_000;
/** How long `unpair` tries to reach a lock to take the bridge's fabric off it before only forgetting it. */
const UNPAIR_CONNECT_MS = 30_000;

async function loadMatter(storagePath: string) {
  const { config, NodeJsAlreadyInitializedError } = await import('@matter/nodejs/config');
  // Settable only until matter.js is first loaded (config.isInitialized cannot be read): a second
  // network in this process (a test's, or `bridge unpair` beside a bridge) finds them set by the first.
  try {
    config.loadProcessArgv = false;
    config.loadProcessEnv = false;
    config.loadConfigFile = false;
    config.trapProcessSignals = false;
    config.trapUnhandledErrors = false;
    config.setProcessExitCodeOnError = false;
    config.defaultStoragePath = storagePath;
  } catch (err) {
    if (!(err instanceof NodeJsAlreadyInitializedError)) throw err;
  }
  const main = await import('@matter/main');
  const clusters = await import('@matter/main/clusters');
  const types = await import('@matter/main/types');
  const { CommissioningController } = await import('@project-chip/matter.js');
  const device = await import('@project-chip/matter.js/device');
  main.Logger.level = main.LogLevel.ERROR;
  return { main, clusters, types, device, CommissioningController };
}

type Matter = Awaited<ReturnType<typeof loadMatter>>;

/** The setup code's passcode and discriminator (short from a manual code, long from a QR payload). */
function setupCode(matter: Matter, code: string): { passcode: number; identifierData: { shortDiscriminator: number } | { longDiscriminator: number } } {
  const text = code.trim();
  if (text.startsWith('MT:')) {
    const [payload] = matter.types.QrPairingCodeCodec.decode(text);
    if (payload === undefined) throw new Error('the QR payload holds no device');
    return { passcode: payload.passcode, identifierData: { longDiscriminator: payload.discriminator } };
  }
  const manual = matter.types.ManualPairingCodeCodec.decode(text.replace(/[\s-]/g, ''));
  if (manual.shortDiscriminator === undefined) throw new Error('the pairing code holds no discriminator');
  return { passcode: manual.passcode, identifierData: { shortDiscriminator: manual.shortDiscriminator } };
}

function apiOf(matter: Matter): MatterApi {
  const { DoorLock, PowerSource } = matter.clusters;
  return {
    // The first endpoint with a Door Lock cluster (endpoint 1 on the locks seen so far, not by rule).
    doorLock(node) {
      for (const device of node.getDevices()) {
        const client = device.getClusterClient(DoorLock.Complete);
        if (client !== undefined) return client;
      }
      return undefined;
    },
    async batteryOf(node) {
      for (const device of node.getDevices()) {
        const source = device.getClusterClient(PowerSource.Complete);
        if (source !== undefined) return source.getBatPercentRemainingAttribute();
      }
      return undefined;
    },
    isConnected: (node) => node.isConnected,
    subscribeAgain: (node) => node.triggerReconnect(),
    // matter.js's option is a Duration (milliseconds); the bridge's old `timedRequestTimeoutMs` was ignored (always 10 s).
    timed: (ms) => ({ asTimedRequest: true, timedRequestTimeout: matter.main.Millis(ms) }),
  };
}

/** Resolves true once matter.js has connected the node (connecting it), false after `ms`. */
function connectedWithin(matter: Matter, node: PairedNode, ms: number): Promise<boolean> {
  const connected = () => node.connectionState === matter.device.NodeStates.Connected;
  if (connected()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (result: boolean) => {
      clearTimeout(timer);
      node.events.stateChanged.off(changed);
      resolve(result);
    };
    const changed = () => { if (connected()) done(true); };
    const timer = setTimeout(() => done(false), ms);
    node.events.stateChanged.on(changed);
    node.connect();
  });
}

async function readPaired(file: string): Promise<Paired> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Paired;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
}

async function writePaired(file: string, paired: Paired): Promise<void> {
  await writeFile(`${file}.tmp`, JSON.stringify(paired, null, 2), { flush: true });
  await rename(`${file}.tmp`, file);
}

export async function startMatterNetwork(options: MatterOptions): Promise<MatterNetwork> {
  const { dataDir, logger } = options;
  const storagePath = join(dataDir, 'matter');
  await mkdir(storagePath, { recursive: true });
  const matter = await loadMatter(storagePath);
  const environment = matter.main.Environment.default;
  environment.vars.set('storage.path', storagePath);
  const controller: CommissioningController = new matter.CommissioningController({
    environment: { environment, id: 'latchkey-bridge' },
    autoConnect: false,
    adminFabricLabel: 'Latchkey bridge',
    localPort: options.port,
  });
  await controller.start();
  const pairedFile = join(dataDir, 'matter', 'paired.json');
  const paired = await readPaired(pairedFile);
  const api = apiOf(matter);
  const nodes = new Map<string, PairedNode>();
  let closed = false;
  const pinging = new Set<MatterLock>();
  const ping = (lock: MatterLock): void => {
    if (pinging.has(lock) || closed) return;
    pinging.add(lock);
    void lock.ping(Math.max(1_000, options.pingSeconds * 1000)).finally(() => pinging.delete(lock));
  };
  // A few locks are paired at a time; the others wait their turn.
  let pairingNow = 0;
  const pairingTurns: Array<() => void> = [];
  const pairingSlot = async <T>(pair: () => Promise<T>): Promise<T> => {
    while (pairingNow >= PAIRING_AT_ONCE) await new Promise<void>((resolve) => pairingTurns.push(resolve));
    pairingNow += 1;
    try {
      return await pair();
    } finally {
      pairingNow -= 1;
      pairingTurns.shift()?.();
    }
  };
  const stopping = new AbortController();
  // Locks are paired side by side; their pairings are written one after another (one file).
  let saving = Promise.resolve();
  const savePaired = (): Promise<void> => (saving = saving.catch(() => undefined).then(() => writePaired(pairedFile, paired)));

  const connect = async ({ config, lock }: MatterOptions['locks'][number]): Promise<void> => {
    let nodeId = paired[config.id];
    if (nodeId === undefined) {
      const { passcode, identifierData } = setupCode(matter, config.matter!.pairingCode);
      const address = config.matter!.address;
      const paired_ = await pairingSlot(() => {
        logger.info({ lockId: config.id, address: address ?? 'discovery' }, 'pairing a Matter lock');
        return controller.commissionNode({
          commissioning: { regulatoryLocation: matter.clusters.GeneralCommissioning.RegulatoryLocationType.IndoorOutdoor, regulatoryCountryCode: 'XX' },
          discovery: { identifierData, ...(address === undefined ? {} : { knownAddress: { ip: address.ip, port: address.port, type: 'udp' as const } }) },
          passcode,
        });
      });
      nodeId = String(paired_);
      paired[config.id] = nodeId;
      await savePaired();
      logger.info({ lockId: config.id, nodeId }, 'Matter lock paired');
    }
    const node = await controller.getNode(matter.types.NodeId(BigInt(nodeId)));
    nodes.set(config.id, node);
    lock.attach(node, api, () => ping(lock));
    node.connect();
    // Read at once: a node just paired is connected already, and says so to no listener.
    ping(lock);
  };

  // Each lock on its own: one that cannot be paired or reached now does not hold the others, and is tried again.
  const keepConnecting = async (entry: MatterOptions['locks'][number]): Promise<void> => {
    for (let waitMs = RETRY_FIRST_MS; !closed; waitMs = Math.min(waitMs * 2, RETRY_MAX_MS)) {
      try {
        return await connect(entry);
      } catch (err) {
        if (closed) return;
        logger.error({ lockId: entry.config.id, err: err instanceof Error ? err.message : String(err), retryInSeconds: waitMs / 1000 }, 'Matter lock not connected');
        await sleep(waitMs, undefined, { signal: stopping.signal, ref: false }).catch(() => undefined);
      }
    }
  };
  for (const entry of options.locks) void keepConnecting(entry);
  const pinger = setInterval(() => {
    for (const { lock } of options.locks) ping(lock);
  }, options.pingSeconds * 1000);

  return {
    async unpair(lockId) {
      const nodeId = paired[lockId];
      if (nodeId === undefined) return { unpaired: false, decommissioned: false };
      const id = matter.types.NodeId(BigInt(nodeId));
      // Offline to the service from now on, whatever the lock answers.
      options.locks.find((entry) => entry.config.id === lockId)?.lock.detach();
      // A node this process never connected (`latchkey bridge unpair`, the bridge stopped) is made
      // known first: matter.js would otherwise forget it without telling the lock.
      const node = nodes.get(lockId) ?? await controller.getNode(id);
      nodes.delete(lockId);
      let decommissioned = false;
      try {
        // matter.js decommissions only a node it is connected to.
        if (!(await connectedWithin(matter, node, UNPAIR_CONNECT_MS))) throw new Error('not connected');
        await node.decommission();
        decommissioned = true;
      } catch (err) {
        logger.warn({ lockId, err: err instanceof Error ? err.message : String(err) }, 'Matter lock not decommissioned (not reachable?): forgotten all the same; reset it by hand');
      }
      await controller.removeNode(id, false);
      delete paired[lockId];
      await savePaired();
      logger.info({ lockId, nodeId, decommissioned }, 'Matter lock unpaired');
      return { unpaired: true, decommissioned };
    },
    async close() {
      closed = true;
      stopping.abort();
      clearInterval(pinger);
      await controller.close();
    },
  };
}
