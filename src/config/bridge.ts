import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

/**
 * `latchkey bridge`'s configuration: one JSON file (which locks it drives and how to reach them)
 * and a few environment variables (what differs between machines, and secrets), read once at
 * start-up into one typed object. A wrong value stops start-up with one line naming it.
 */

const LockId = Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' });

const BridgedLockFile = Type.Object({
  id: LockId,
  /** A file holding the device secret `latchkey lock provision` printed (first line). */
  secretFile: Type.String({ minLength: 1 }),
  zwave: Type.Optional(Type.Object({ nodeId: Type.Integer({ minimum: 2, maximum: 4000 }) }, { additionalProperties: false })),
  matter: Type.Optional(Type.Object({
    /** The manual pairing code (11 or 21 digits, dashes allowed) or the QR payload (MT:…). */
    pairingCode: Type.String({ minLength: 11, maxLength: 256 }),
    /** IP:PORT (or [IPv6]:PORT) where the lock answers, when discovery cannot find it. */
    address: Type.Optional(Type.String({ minLength: 3 })),
  }, { additionalProperties: false })),
}, { additionalProperties: false });

const BridgeFile = Type.Object({
  mqttUrl: Type.Optional(Type.String({ pattern: '^(mqtts?|tcp|tls)://' })),
  topicPrefix: Type.Optional(Type.String({ minLength: 1 })),
  dataDir: Type.Optional(Type.String({ minLength: 1 })),
  trustedRootFile: Type.Optional(Type.String({ minLength: 1 })),
  lockReplyTimeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 600_000 })),
  zwave: Type.Optional(Type.Object({
    url: Type.String({ pattern: '^wss?://' }),
    pingSeconds: Type.Optional(Type.Number({ minimum: 0.1, maximum: 3600 })),
  }, { additionalProperties: false })),
  matter: Type.Optional(Type.Object({
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    pingSeconds: Type.Optional(Type.Number({ minimum: 0.1, maximum: 3600 })),
  }, { additionalProperties: false })),
  lan: Type.Optional(Type.Object({
    port: Type.Integer({ minimum: 0, maximum: 65535 }),
    host: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    advertiseHost: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\s/?#@]+$' })),
  }, { additionalProperties: false })),
  locks: Type.Array(BridgedLockFile),
}, { additionalProperties: false });

type BridgeFile = Static<typeof BridgeFile>;
const checkFile = TypeCompiler.Compile(BridgeFile);

export interface BridgedLockConfig {
  id: string;
  secret: string;
  /** Exactly one of these says how the real lock is reached. */
  zwave?: { nodeId: number };
  matter?: { pairingCode: string; address?: { ip: string; port: number } };
}

export interface BridgeConfig {
  mqttUrl: string;
  topicPrefix: string;
  /** Where the bridge keeps what must survive a restart (each lock's replay memory). */
  dataDir: string;
  /** Base64 DER of the service's root CA, for certificate (EdDSA) tokens; null: RS256 only. */
  trustedRoot: string | null;
  /** How long a command without a deadline (protocol 1.1) may take, milliseconds. */
  lockReplyTimeoutMs: number;
  zwave: { url: string; pingSeconds: number } | null;
  /** The Matter controller's UDP port (0: any) and how often each Matter lock is read to tell it is there. */
  matter: { port: number; pingSeconds: number };
  /** Unlock on the LAN (device protocol 1.3): one HTTP endpoint for every lock; absent: not served. */
  lan?: { port: number; host?: string; advertiseHost?: string };
  locks: BridgedLockConfig[];
  logLevel: string;
}

/** Every setting `latchkey bridge --help` describes: the file's fields and the environment. */
export const BRIDGE_SETTINGS: ReadonlyArray<{ name: string; default: string; meaning: string }> = [
  { name: 'BRIDGE_CONFIG (env) / --config', default: './bridge.json', meaning: 'the configuration file (JSON) with the fields below' },
  { name: 'mqttUrl / BRIDGE_MQTT_URL (env wins)', default: 'mqtt://127.0.0.1:1884', meaning: "the broker the service uses (its embedded one, or MQTT_URL's); each lock logs in with its own id and secret" },
  { name: 'topicPrefix / MQTT_TOPIC_PREFIX (env wins)', default: 'locks', meaning: "the service's MQTT_TOPIC_PREFIX" },
  { name: 'dataDir / BRIDGE_DATA_DIR (env wins)', default: './bridge-data', meaning: 'where each lock\'s replay memory is kept (survives restarts); relative to the file' },
  { name: 'trustedRootFile', default: 'none: RS256 tokens only', meaning: "the service's root CA (PEM or Base64 DER), to verify certificate (EdDSA) tokens" },
  { name: 'lockReplyTimeoutMs', default: '5000', meaning: "the service's LOCK_REPLY_TIMEOUT_MS, for commands of protocol 1.1 that carry no deadline" },
  { name: 'zwave.url / BRIDGE_ZWAVE_URL (env wins)', default: 'none', meaning: 'Z-Wave JS Server WebSocket (ws://HOST:3000, as Z-Wave JS UI or Home Assistant\'s add-on serve it)' },
  { name: 'zwave.pingSeconds', default: '10', meaning: 'how often each Z-Wave lock is pinged; an unreachable one is reported offline' },
  { name: 'matter.port', default: '5550', meaning: "the Matter controller's UDP port (not 5540, which Matter devices use)" },
  { name: 'matter.pingSeconds', default: '10', meaning: 'how often each Matter lock is read; one that does not answer is reported offline' },
  { name: 'lan.port', default: 'not served', meaning: "serve unlock on the LAN (the official SDK's directAccessEndpoints) on this TCP port, for every lock; each lock's owner decides whether members see it" },
  { name: 'lan.host', default: 'all interfaces', meaning: 'the interface the LAN endpoint listens on' },
  { name: 'lan.advertiseHost', default: 'lan.host, else 127.0.0.1', meaning: 'the host name or address phones reach the bridge at, in the URL each lock announces (http://HOST:PORT/device/execute)' },
  { name: 'locks[].id', default: '-', meaning: 'the lock id `latchkey lock provision` printed' },
  { name: 'locks[].secretFile', default: '-', meaning: 'a file holding its device secret (relative to the file)' },
  { name: 'locks[].zwave.nodeId', default: '-', meaning: 'the Z-Wave node id of the real lock (or locks[].matter)' },
  { name: 'locks[].matter.pairingCode', default: '-', meaning: 'the Matter lock\'s manual pairing code or QR payload (MT:…); paired at the first start, kept in dataDir' },
  { name: 'locks[].matter.address', default: 'discovery', meaning: 'IP:PORT of the Matter lock when mDNS discovery cannot find it' },
  { name: 'LOG_LEVEL (env)', default: 'info', meaning: 'pino level of the bridge log' },
];

export class BridgeConfigError extends Error {
  override name = 'BridgeConfigError';
}

const rootFromText = (text: string): string => {
  const pem = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/.exec(text);
  const body = (pem ? pem[1]! : text).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) throw new BridgeConfigError('trustedRootFile must hold a PEM certificate or Base64 DER');
  return body;
};

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new BridgeConfigError(`${what}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** `IP:PORT` or `[IPv6]:PORT`. */
function parseAddress(text: string, what: string): { ip: string; port: number } {
  const match = /^\[([0-9a-fA-F:.%\w]+)\]:(\d+)$/.exec(text) ?? /^([0-9.]+):(\d+)$/.exec(text);
  const port = Number(match?.[2]);
  if (!match || !(port > 0 && port < 65536)) throw new BridgeConfigError(`${what} must be IP:PORT or [IPv6]:PORT`);
  return { ip: match[1]!, port };
}

/** Reads the file named by `--config` or BRIDGE_CONFIG and the environment; throws BridgeConfigError naming the setting. */
export function loadBridgeConfig(configPath: string | undefined, env: NodeJS.ProcessEnv, cwd: string): BridgeConfig {
  const path = resolve(cwd, configPath ?? (env.BRIDGE_CONFIG || './bridge.json'));
  let file: unknown;
  try {
    file = JSON.parse(readText(path, 'BRIDGE_CONFIG'));
  } catch (err) {
    if (err instanceof BridgeConfigError) throw err;
    throw new BridgeConfigError(`BRIDGE_CONFIG: ${path} is not JSON`);
  }
  if (!checkFile.Check(file)) {
    const first = checkFile.Errors(file).First();
    throw new BridgeConfigError(`BRIDGE_CONFIG: ${first ? `${first.path || '/'}: ${first.message}` : 'bad shape'}`);
  }
  const parsed: BridgeFile = file;
  const near = (p: string) => resolve(dirname(path), p);
  const zwaveUrl = env.BRIDGE_ZWAVE_URL || parsed.zwave?.url;
  if (zwaveUrl !== undefined && !/^wss?:\/\//.test(zwaveUrl)) throw new BridgeConfigError('BRIDGE_ZWAVE_URL must be a ws:// or wss:// URL');
  const mqttUrl = env.BRIDGE_MQTT_URL || parsed.mqttUrl || 'mqtt://127.0.0.1:1884';
  if (!/^(mqtts?|tcp|tls):\/\//.test(mqttUrl)) throw new BridgeConfigError('BRIDGE_MQTT_URL must be an mqtt:// or mqtts:// URL');
  const ids = new Set<string>();
  const nodes = new Set<number>();
  const locks = parsed.locks.map((lock, index): BridgedLockConfig => {
    if (ids.has(lock.id)) throw new BridgeConfigError(`locks[${index}].id: ${lock.id} is listed twice`);
    if ((lock.zwave === undefined) === (lock.matter === undefined)) throw new BridgeConfigError(`locks[${index}]: give exactly one of zwave and matter`);
    if (lock.zwave !== undefined && nodes.has(lock.zwave.nodeId)) throw new BridgeConfigError(`locks[${index}].zwave.nodeId: node ${lock.zwave.nodeId} is listed twice`);
    ids.add(lock.id);
    if (lock.zwave !== undefined) nodes.add(lock.zwave.nodeId);
    const secret = readText(near(lock.secretFile), `locks[${index}].secretFile`).split(/\r?\n/)[0]!.trim();
    if (secret === '') throw new BridgeConfigError(`locks[${index}].secretFile is empty`);
    if (lock.zwave !== undefined) return { id: lock.id, secret, zwave: lock.zwave };
    const matter = lock.matter!;
    return { id: lock.id, secret, matter: { pairingCode: matter.pairingCode, ...(matter.address === undefined ? {} : { address: parseAddress(matter.address, `locks[${index}].matter.address`) }) } };
  });
  if (locks.some((lock) => lock.zwave !== undefined) && zwaveUrl === undefined) throw new BridgeConfigError('zwave.url (or BRIDGE_ZWAVE_URL) is required for Z-Wave locks');
  return {
    mqttUrl,
    topicPrefix: env.MQTT_TOPIC_PREFIX || parsed.topicPrefix || 'locks',
    dataDir: env.BRIDGE_DATA_DIR ? resolve(env.BRIDGE_DATA_DIR) : near(parsed.dataDir ?? './bridge-data'),
    trustedRoot: parsed.trustedRootFile === undefined ? null : rootFromText(readText(near(parsed.trustedRootFile), 'trustedRootFile')),
    lockReplyTimeoutMs: parsed.lockReplyTimeoutMs ?? 5000,
    zwave: zwaveUrl === undefined ? null : { url: zwaveUrl, pingSeconds: parsed.zwave?.pingSeconds ?? 10 },
    matter: { port: parsed.matter?.port ?? 5550, pingSeconds: parsed.matter?.pingSeconds ?? 10 },
    ...(parsed.lan === undefined ? {} : { lan: parsed.lan }),
    locks,
    logLevel: env.LOG_LEVEL || 'info',
  };
}
