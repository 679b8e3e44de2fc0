import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { CommissioningController } from '@project-chip/matter.js';
import type { PairedNode } from '@project-chip/matter.js/device';
import type { BridgedLockConfig } from '../../config/bridge.js';
import type { MatterApi, MatterLock } from './matter-lock.js';

/**
 * The bridge as a Matter controller (matter.js, `@matter/main`): pairs each Matter lock from its
 * setup code (manual pairing code or QR payload; a known address when discovery cannot find it),
 * keeps the node ids it paired in the data directory (`matter/paired.json`) and matter.js's own
 * storage beside them (never `~/.matter`), connects each node (matter.js keeps the session and the
 * subscription and re-subscribes after reconnecting) and hands it to its MatterLock.
 *
 * matter.js is loaded here only, and told first (`@matter/nodejs/config`) to read no `--x=y`
 * arguments, no `MATTER_*` variables and no config file, and to trap no signals: the bridge's
 * configuration is its own, and it shuts down on SIGTERM itself.
 */

export interface MatterNetwork {
  close(): Promise<void>;
  /** Decommissions the lock's node (removes the bridge's fabric from it) and forgets it. */
  unpair(lockId: string): Promise<boolean>;
}

interface MatterOptions {
  dataDir: string;
  port: number;
  pingSeconds: number;
  logger: Logger;
  locks: Array<{ config: BridgedLockConfig; lock: MatterLock }>;
}

type Paired = Record<string, string>;

async function loadMatter(storagePath: string) {
  const { config } = await import('@matter/nodejs/config');
  if (!config.isInitialized) {
    config.loadProcessArgv = false;
    config.loadProcessEnv = false;
    config.loadConfigFile = false;
    config.trapProcessSignals = false;
    config.trapUnhandledErrors = false;
    config.setProcessExitCodeOnError = false;
    config.defaultStoragePath = storagePath;
  }
  const main = await import('@matter/main');
  const clusters = await import('@matter/main/clusters');
  const types = await import('@matter/main/types');
  const { CommissioningController } = await import('@project-chip/matter.js');
  main.Logger.level = main.LogLevel.ERROR;
  return { main, clusters, types, CommissioningController };
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
  };
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
  // Locks are paired side by side; their pairings are written one after another (one file).
  let saving = Promise.resolve();
  const savePaired = (): Promise<void> => (saving = saving.catch(() => undefined).then(() => writePaired(pairedFile, paired)));

  const connect = async ({ config, lock }: MatterOptions['locks'][number]): Promise<void> => {
    let nodeId = paired[config.id];
    if (nodeId === undefined) {
      const { passcode, identifierData } = setupCode(matter, config.matter!.pairingCode);
      const address = config.matter!.address;
      logger.info({ lockId: config.id, address: address ?? 'discovery' }, 'pairing a Matter lock');
      const paired_ = await controller.commissionNode({
        commissioning: { regulatoryLocation: matter.clusters.GeneralCommissioning.RegulatoryLocationType.IndoorOutdoor, regulatoryCountryCode: 'XX' },
        discovery: { identifierData, ...(address === undefined ? {} : { knownAddress: { ip: address.ip, port: address.port, type: 'udp' as const } }) },
        passcode,
      });
      nodeId = String(paired_);
      paired[config.id] = nodeId;
      await savePaired();
      logger.info({ lockId: config.id, nodeId }, 'Matter lock paired');
    }
    const node = await controller.getNode(matter.types.NodeId(BigInt(nodeId)));
    nodes.set(config.id, node);
    lock.attach(node, api);
    node.connect();
  };

  // Each lock on its own: one that cannot be paired or reached now does not hold the others.
  for (const entry of options.locks) {
    connect(entry).catch((err: unknown) => logger.error({ lockId: entry.config.id, err: err instanceof Error ? err.message : String(err) }, 'Matter lock not connected'));
  }
  const pinging = new Set<MatterLock>();
  const pinger = setInterval(() => {
    for (const { lock } of options.locks) {
      if (pinging.has(lock) || closed) continue;
      pinging.add(lock);
      void lock.ping(Math.max(1_000, options.pingSeconds * 1000)).finally(() => pinging.delete(lock));
    }
  }, options.pingSeconds * 1000);

  return {
    async unpair(lockId) {
      const nodeId = paired[lockId];
      if (nodeId === undefined) return false;
      await controller.removeNode(matter.types.NodeId(BigInt(nodeId)), true);
      delete paired[lockId];
      await savePaired();
      return true;
    },
    async close() {
      closed = true;
      clearInterval(pinger);
      await controller.close();
    },
  };
}
