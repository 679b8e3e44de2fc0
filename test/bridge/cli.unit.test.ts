import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BRIDGE_SETTINGS, BridgeConfigError, loadBridgeConfig } from '../../src/config/bridge.js';
import { latchkey } from '../helpers/cli.js';

const LOCK = '0198f3a0-5d2c-4b1e-9c44-2f6a1e0b7d55';

async function configFile(body: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-bridge-config-'));
  await writeFile(join(dir, 'front-door.secret'), 'the-secret\n');
  await writeFile(join(dir, 'bridge.json'), JSON.stringify(body));
  return join(dir, 'bridge.json');
}

describe('latchkey bridge configuration', () => {
  it('reads the file once, secrets and paths relative to it, the environment winning', async () => {
    const path = await configFile({ mqttUrl: 'mqtt://broker:1883', zwave: { url: 'ws://zwave:3000' }, locks: [{ id: LOCK, secretFile: 'front-door.secret', zwave: { nodeId: 5 } }] });
    const config = loadBridgeConfig(path, { BRIDGE_MQTT_URL: 'mqtts://elsewhere:8883' }, process.cwd());
    assert.equal(config.mqttUrl, 'mqtts://elsewhere:8883');
    assert.deepEqual(config.locks, [{ id: LOCK, secret: 'the-secret', zwave: { nodeId: 5 } }]);
    assert.deepEqual(config.zwave, { url: 'ws://zwave:3000', pingSeconds: 10 });
    assert.equal(config.dataDir, join(path, '..', 'bridge-data'));
    assert.equal(config.trustedRoot, null);
  });

  it('stops with one line naming the setting that is wrong', async () => {
    const wrong = async (body: unknown, env: NodeJS.ProcessEnv = {}) => {
      const path = await configFile(body);
      return assert.throws(() => loadBridgeConfig(path, env, process.cwd()), BridgeConfigError);
    };
    await wrong({ locks: [{ id: 'not-an-id', secretFile: 'front-door.secret', zwave: { nodeId: 5 } }] });
    await wrong({ locks: [{ id: LOCK, secretFile: 'front-door.secret', zwave: { nodeId: 5 } }] }); // no zwave.url
    await wrong({ locks: [], surprise: true });
    await wrong({ locks: [] }, { BRIDGE_ZWAVE_URL: 'http://zwave:3000' });
    assert.throws(() => loadBridgeConfig('/nonexistent/bridge.json', {}, process.cwd()), /BRIDGE_CONFIG: cannot read/);
  });

  it('--help describes every setting', async () => {
    const help = await latchkey(['bridge', '--help'], {});
    assert.equal(help.code, 0, help.stderr);
    for (const setting of BRIDGE_SETTINGS) assert.ok(help.stdout.includes(setting.name), setting.name);
  });

  it('bridge unpair says when the lock was never paired', async () => {
    const path = await configFile({ locks: [], matter: { port: 0 } });
    const unpair = await latchkey(['bridge', 'unpair', '--lock', LOCK, '--config', path], { ...process.env, LOG_LEVEL: 'silent' });
    assert.equal(unpair.code, 1, unpair.stderr);
    assert.deepEqual(JSON.parse(unpair.stdout), { lockId: LOCK, unpaired: false, decommissioned: false });
  });

  // The executable's own process: its exit status after the signal.
  it('shuts down cleanly on SIGTERM', async () => {
    const path = await configFile({ locks: [] });
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'bridge', '--config', path], { env: { ...process.env, LOG_LEVEL: 'info' } });
    let output = '';
    let signalled = false;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (signalled || !output.includes('bridge started')) return;
      signalled = true;
      child.kill('SIGTERM');
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 0);
    assert.match(output, /bridge stopped/);
  });
});
