import { loadConfig } from '../config/config.js';
import { createLogger } from '../context.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrator.js';
import { startService } from '../server.js';
import type { Command } from './command.js';

export const serveCommand: Command = {
  path: ['serve'],
  summary: 'Run the service (migrates the database first)',
  usage: 'serve',
  options: {},
  async run() {
    const config = loadConfig();
    const logger = createLogger(config);
    const service = await startService(config, { logger });
    logger.info({ url: config.baseUrl, port: config.port, database: config.database.kind }, 'latchkey serving');
    const stop = (signal: string) => {
      logger.info({ signal }, 'shutting down');
      service.close().then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    return null;
  },
};

export const migrateCommand: Command = {
  path: ['migrate'],
  summary: 'Bring the database schema up to date, then exit',
  usage: 'migrate',
  options: {},
  async run() {
    const config = loadConfig();
    const db = openDatabase(config.database);
    try {
      const applied = await migrateToLatest(db);
      console.log(JSON.stringify({ applied }));
      return 0;
    } finally {
      await db.close();
    }
  },
};
