import pino from 'pino';
import { BRIDGE_SETTINGS, BridgeConfigError, loadBridgeConfig } from '../config/bridge.js';
import { runBridge } from '../bridge/run-bridge.js';
import { UsageError, type Command } from '../command-line/command.js';

function settingsTable(): string {
  const width = Math.max(...BRIDGE_SETTINGS.map((s) => s.name.length));
  return ['Settings (configuration file fields and environment variables, read once at start):', ...BRIDGE_SETTINGS.map((s) => `  ${s.name.padEnd(width)}  ${s.meaning} (default: ${s.default})`), '', 'docs/bridge.md shows a configuration file, the topologies, pairing and troubleshooting.'].join('\n');
}

/** `latchkey bridge`: drives real locks as Latchkey locks until SIGINT/SIGTERM. */
export const bridgeCommand: Command = {
  path: ['bridge'],
  summary: 'Run the on-site bridge: each Z-Wave lock it drives is a Latchkey lock, every command checked at the edge',
  usage: 'bridge [--config PATH]',
  options: {
    config: { type: 'string', description: 'the configuration file (JSON); default: BRIDGE_CONFIG, else ./bridge.json' },
  },
  details: settingsTable,
  async run(values) {
    let config;
    try {
      config = loadBridgeConfig(typeof values.config === 'string' ? values.config : undefined);
    } catch (err) {
      if (err instanceof BridgeConfigError) throw new UsageError(err.message);
      throw err;
    }
    const logger = pino({ level: config.logLevel });
    // Handlers go in before start-up, so a supervisor's SIGTERM during it still ends in a clean stop.
    const stopped = new Promise<string>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
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
