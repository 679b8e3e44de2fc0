import { readFile } from 'node:fs/promises';
import pino from 'pino';
import { loadConfig, type Config } from '../config/config.js';
import { loadKeyEncryptionKey, createSecretBox } from '../crypto/secret-box.js';
import { openDatabase } from '../db/database.js';
import { isValidLockId } from '../device-protocol/topics.js';
import { UsageError, optionalNumber, optionPath, printer, println, requireString, type Command } from '../command-line/command.js';
import { deviceSecret } from '../command-line/device-secret.js';

// Loaded when the command runs, not for every command: `latchkey` loads only what the command it
// runs needs (each CLI process, and the test suite's hundred-odd, paid for the lock stacks'
// and the simulator's modules; docs/decisions.md, The test suite's time).
const loadSimulator = () => import('../simulator/run-simulator.js');

/** Base64 DER from a file holding a PEM certificate or Base64 DER. */
export function rootFromText(text: string): string {
  const pem = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/.exec(text);
  const body = (pem ? pem[1]! : text).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body) || Buffer.from(body, 'base64').length < 100) throw new UsageError('--root-file must hold a PEM certificate or Base64 DER');
  return body;
}

/**
 * The service's root CA from its database, when this machine can read it (same DATABASE_URL and
 * key-encryption key); undefined otherwise. Never creates a CA: only an existing one is read.
 */
async function rootFromDatabase(config: Config): Promise<string | undefined> {
  const db = openDatabase(config.database);
  try {
    const stored = await db.kysely.selectFrom('sealed_secrets').select('name').where('name', '=', 'pki:ca').executeTakeFirst();
    if (!stored) return undefined;
    const { loadCertificateAuthority } = await import('../certificates/ca.js');
    const box = createSecretBox(loadKeyEncryptionKey(config.keyEncryptionKey, config.dataDir));
    const pki = await loadCertificateAuthority({ db, box, logger: pino({ level: 'silent' }), now: () => Date.now() / 1000, config: {} });
    return pki.rootCertificate;
  } catch {
    return undefined;
  } finally {
    await db.close();
  }
}

/** `latchkey lock simulate`: a virtual lock per docs/device-protocol.md until SIGINT/SIGTERM. */
export const lockSimulateCommand: Command = {
  path: ['lock', 'simulate'],
  summary: 'Run a virtual lock on the lock link; reads open/close/offline/online/state lines on stdin',
  usage: 'lock simulate --id ID [--secret-file PATH] [--mqtt URL] [--reply-delay MS] [--root-file PATH] [--replay-file PATH] [--outbox-file PATH] [--lockdown-file PATH] [--keypad-file PATH] [--lan-port N [--lan-host HOST] [--lan-advertise HOST]]  (secret: LOCK_SECRET or --secret-file)',
  options: {
    id: { type: 'string', description: 'the lock id printed by `latchkey lock provision` (required)' },
    'secret-file': { type: 'string', description: 'a file holding the device secret printed by `latchkey lock provision`; or set LOCK_SECRET' },
    secret: { type: 'string', description: 'the device secret itself (deprecated: visible to every user in `ps`; use --secret-file or LOCK_SECRET)' },
    mqtt: { type: 'string', description: 'broker URL (mqtt:// or mqtts://); default: MQTT_URL, else the embedded broker at mqtt://127.0.0.1:$MQTT_PORT' },
    'reply-delay': { type: 'string', description: 'milliseconds to wait before answering each command, 0 to 600000; default 0' },
    'root-file': { type: 'string', description: 'the root CA to trust for certificate (EdDSA) tokens, PEM or Base64 DER; default: read from the service\'s database when this machine can' },
    'replay-file': { type: 'string', description: 'a file where the lock remembers the tokens it has used, so a replay is refused after a restart too; default: in memory only' },
    'outbox-file': { type: 'string', description: 'a file where what the lock did on its own (LAN, keypad, by hand) waits while the service cannot be reached; default: in memory only' },
    'lan-port': { type: 'string', description: 'serve unlock on the LAN (the SDK\'s directAccessEndpoints) on this TCP port, 0 for any free one; default: not served' },
    'lan-host': { type: 'string', description: 'the interface the LAN endpoint listens on; default: all' },
    'lan-advertise': { type: 'string', description: 'the host name or address phones reach the LAN endpoint at, in the URL the lock announces; default: --lan-host, else 127.0.0.1' },
    'lockdown-file': { type: 'string', description: 'a file where the lock keeps a lockdown in force, so it holds after a restart too; default: in memory only' },
    'keypad-file': { type: 'string', description: "a file where the keypad keeps each code's uses and a lockout, so a one-time code used before a restart stays used; default: in memory only" },
  },
  async run(values, io) {
    const id = requireString(values, 'id').toLowerCase();
    if (!isValidLockId(id)) throw new UsageError('--id must be a lock id');
    const replyDelayMs = optionalNumber(values, 'reply-delay') ?? 0;
    if (replyDelayMs < 0 || replyDelayMs > 600_000) throw new UsageError('--reply-delay must be 0 to 600000 milliseconds');
    const config = loadConfig(io.env, io.cwd);
    const secret = await deviceSecret(values, config.lockOps.deviceSecret, io.cwd, printer(io.stderr));
    // The broker the service uses: MQTT_URL when external, else the embedded one on this machine.
    const serviceBroker = config.mqtt.kind === 'external' ? config.mqtt.url : `mqtt://127.0.0.1:${config.mqtt.port}`;
    const mqttUrl = typeof values.mqtt === 'string' ? values.mqtt : serviceBroker;
    if (!/^(mqtts?|tcp|tls):\/\//.test(mqttUrl)) throw new UsageError('--mqtt must be an mqtt:// or mqtts:// URL');
    const rootFile = optionPath(values, 'root-file', io);
    const trustedRoot = rootFile ? rootFromText(await readFile(rootFile, 'utf8')) : await rootFromDatabase(config);
    if (!trustedRoot) println(io.stderr, 'latchkey lock simulate: no trusted root CA; certificate (EdDSA) tokens will be refused');
    const replayFile = optionPath(values, 'replay-file', io);
    const outboxFile = optionPath(values, 'outbox-file', io);
    const lanPort = optionalNumber(values, 'lan-port');
    if (lanPort !== undefined && !(Number.isInteger(lanPort) && lanPort >= 0 && lanPort <= 65535)) throw new UsageError('--lan-port must be 0 to 65535');
    const lanHost = typeof values['lan-host'] === 'string' ? values['lan-host'] : undefined;
    const lanAdvertise = typeof values['lan-advertise'] === 'string' ? values['lan-advertise'] : undefined;
    if (lanPort === undefined && (lanHost !== undefined || lanAdvertise !== undefined)) throw new UsageError('--lan-host and --lan-advertise need --lan-port');
    const lockdownFile = optionPath(values, 'lockdown-file', io);
    const keypadFile = optionPath(values, 'keypad-file', io);
    const { runSimulator } = await loadSimulator();
    const simulator = await runSimulator({
      id, secret, mqttUrl, replyDelayMs, topicPrefix: config.topicPrefix, stdin: process.stdin, stdout: process.stdout,
      ...(trustedRoot ? { trustedRoot } : {}),
      ...(replayFile ? { replayFile } : {}),
      ...(outboxFile ? { outboxFile } : {}),
      ...(lanPort === undefined ? {} : { lan: { port: lanPort, ...(lanHost === undefined ? {} : { host: lanHost }), ...(lanAdvertise === undefined ? {} : { advertiseHost: lanAdvertise }) } }),
      ...(lockdownFile ? { lockdownFile } : {}),
      ...(keypadFile ? { keypadFile } : {}),
    });
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    // A second signal while closing means "now".
    const now = () => process.exit(1);
    process.once('SIGINT', now);
    process.once('SIGTERM', now);
    await simulator.close();
    return 0;
  },
};
