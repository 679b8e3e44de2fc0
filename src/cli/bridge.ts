import pino from 'pino';
import { BRIDGE_SETTINGS, BridgeConfigError, loadBridgeConfig } from '../config/bridge.js';
import { UsageError, println, type Command, type CommandIo } from '../command-line/command.js';

// Loaded when the command runs, not for every command: `latchkey` loads only what the command it
// runs needs (each CLI process, and the test suite's hundred-odd, paid for the lock stacks'
// and the simulator's modules; docs/decisions.md, The test suite's time).
const loadBridge = () => import('../bridge/run-bridge.js');
const loadMatterNetwork = () => import('../bridge/matter/network.js');

function settingsTable(): string {
  const width = Math.max(...BRIDGE_SETTINGS.map((s) => s.name.length));
  return ['Settings (configuration file fields and environment variables, read once at start):', ...BRIDGE_SETTINGS.map((s) => `  ${s.name.padEnd(width)}  ${s.meaning} (default: ${s.default})`), '', 'docs/bridge.md shows a configuration file, the topologies, pairing and troubleshooting.'].join('\n');
}

function loadOrUsage(path: string | boolean | undefined, io: CommandIo) {
  try {
    return loadBridgeConfig(typeof path === 'string' ? path : undefined, io.env, io.cwd);
  } catch (err) {
    if (err instanceof BridgeConfigError) throw new UsageError(err.message);
    throw err;
  }
}

/** `latchkey bridge unpair`: removes the bridge's fabric from a Matter lock and forgets it (with the bridge stopped). */
export const bridgeUnpairCommand: Command = {
  path: ['bridge', 'unpair'],
  summary: "Remove a Matter lock from the bridge: decommission it (the bridge's fabric leaves the lock) and forget it; run it with the bridge stopped",
  usage: 'bridge unpair --lock ID [--config PATH]',
  options: {
    lock: { type: 'string', description: 'the Latchkey lock id of the Matter lock (required)' },
    config: { type: 'string', description: 'the configuration file (JSON); default: BRIDGE_CONFIG, else ./bridge.json' },
  },
  async run(values, io) {
    const lockId = typeof values.lock === 'string' ? values.lock.toLowerCase() : '';
    if (lockId === '') throw new UsageError('--lock is required');
    const config = loadOrUsage(values.config, io);
    const logger = pino({ level: config.logLevel });
    const { startMatterNetwork } = await loadMatterNetwork();
    const network = await startMatterNetwork({ dataDir: config.dataDir, port: config.matter.port, pingSeconds: config.matter.pingSeconds, logger, locks: [] });
    try {
      const { unpaired, decommissioned } = await network.unpair(lockId);
      println(io.stdout, JSON.stringify({ lockId, unpaired, decommissioned }));
      return unpaired ? 0 : 1;
    } finally {
      await network.close();
    }
  },
};

/** `latchkey bridge`: drives real locks as Latchkey locks until SIGINT/SIGTERM. */
export const bridgeCommand: Command = {
  path: ['bridge'],
  summary: 'Run the on-site bridge: each Z-Wave or Matter lock it drives is a Latchkey lock, every command checked at the edge',
  usage: 'bridge [--config PATH]',
  options: {
    config: { type: 'string', description: 'the configuration file (JSON); default: BRIDGE_CONFIG, else ./bridge.json' },
  },
  details: settingsTable,
  async run(values, io) {
    const config = loadOrUsage(values.config, io);
    const logger = pino({ level: config.logLevel });
    // Handlers go in before start-up, so a supervisor's SIGTERM during it still ends in a clean stop.
    const stopped = new Promise<string>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
    const { runBridge } = await loadBridge();
    const bridge = runBridge({ config, logger });
    const signal = await stopped;
    logger.info({ signal }, 'shutting down');
    // A second signal while closing means "now".
    const now = () => process.exit(1);
    process.once('SIGINT', now);
    process.once('SIGTERM', now);
    await bridge.close();
    return 0;
  },
};
