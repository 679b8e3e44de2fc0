import { loadConfig } from '../config/config.js';
import { SETTINGS } from '../config/settings.js';
import { println, type Command } from '../command-line/command.js';

// The service and the database are imported when a command runs, so `latchkey --help` stays quick.

/** The configuration, shown by `serve --help` and `migrate --help`. */
export function environmentHelp(): string {
  const width = Math.max(...SETTINGS.map((s) => s.name.length));
  const rows = SETTINGS.map((s) => `  ${s.name.padEnd(width)}  ${s.meaning} (default: ${s.default})`);
  return ['Environment (read once at start-up; a wrong value stops start-up with one line naming it):', ...rows].join('\n');
}

export const serveCommand: Command = {
  path: ['serve'],
  summary: 'Run the service (migrates the database first)',
  usage: 'serve',
  options: {},
  details: environmentHelp,
  async run(_values, io) {
    const config = loadConfig(io.env, io.cwd);
    const [{ createLogger }, { startService }] = await Promise.all([import('../context.js'), import('../server.js')]);
    const logger = createLogger(config);
    const starting = startService(config, { logger });
    void import('../messaging/smtp-check.js').then(({ reportSmtpReachability }) => reportSmtpReachability(config.smtpUrl, logger));
    // Handlers go in before start-up, so a supervisor's SIGTERM during it still ends in a clean stop.
    const stop = (signal: string) => {
      logger.info({ signal }, 'shutting down');
      starting.then((service) => service.close()).then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    const onTerm = () => stop('SIGTERM');
    const onInt = () => stop('SIGINT');
    process.once('SIGTERM', onTerm);
    process.once('SIGINT', onInt);
    try {
      await starting;
    } catch (err) {
      // Nothing to stop: the handlers go with the failed start (the command's caller reports it).
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      throw err;
    }
    logger.info({ url: config.baseUrl, port: config.port, database: config.database.kind }, 'latchkey serving');
    if (config.database.kind === 'postgres' && !config.redisUrl) {
      logger.warn('no REDIS_URL: fine for one instance; several instances sharing this database need it, or a logout, an event or a rate limit stays on the instance that saw it');
    }
    return null;
  },
};

export const migrateCommand: Command = {
  path: ['migrate'],
  summary: 'Bring the database schema up to date, then exit',
  usage: 'migrate',
  options: {},
  details: () => 'Environment: DATABASE_URL and DATA_DIR choose the database (see `latchkey serve --help`).',
  async run(_values, io) {
    const config = loadConfig(io.env, io.cwd);
    const [{ openDatabase }, { migrateToLatest }] = await Promise.all([import('../db/database.js'), import('../db/migrator.js')]);
    const db = openDatabase(config.database);
    try {
      const applied = await migrateToLatest(db);
      println(io.stdout, JSON.stringify({ applied }));
      return 0;
    } finally {
      await db.close();
    }
  },
};
