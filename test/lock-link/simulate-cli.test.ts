import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { createUser } from '../helpers/factories.js';
import { auditEntriesOf, claimLock, type ClaimedLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';
import { certify, execute, signed, type Signer } from '../execute/support.js';

/** `latchkey lock simulate` as an operator runs it: its own process, reading lines on stdin, logging JSON lines. */
describe('latchkey lock simulate', () => {
  let t: TestService;
  let owner: Signer;
  let lock: ClaimedLock;
  let child: ChildProcessWithoutNullStreams;
  const lines: Array<Record<string, unknown>> = [];
  let stderr = '';

  before(async () => {
    t = await startTestService({ CERT_CHECK: 'never' });
    owner = await certify(t, await createUser(t.api));
    lock = await claimLock(t, owner);
    child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'lock', 'simulate', '--id', lock.id, '--mqtt', `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`],
      // The same database and data directory: the simulator reads the root CA from there.
      // The secret in the environment, not on the command line (where `ps` shows it to everyone).
      { env: { ...process.env, DATABASE_URL: t.database.url, DATA_DIR: t.dataDir, LOG_LEVEL: 'silent', LOCK_SECRET: lock.secret } },
    );
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const complete = pending.split('\n');
      pending = complete.pop()!;
      for (const line of complete.filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  });
  after(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await t?.close();
  });

  const logged = (action: string) => lines.filter((line) => line.action === action);

  it('connects, unlocks for its owner, reports a door opened on stdin, and stops on SIGTERM', async () => {
    await eventually(() => t.service.ctx.link.isOnline(lock.id), 'the simulator online', 30_000);
    await eventually(() => logged('config').some((line) => line.users === 1), 'the config logged', 30_000);
    const res = await execute(t, owner, lock.id, signed(owner, lock.id, { type: 'MUTATE_LOCK', locked: false }));
    assert.equal(res.status, 200, `${res.text} ${stderr}`);
    // The simulator's stdout is a channel of its own: its lines may trail the HTTP answer.
    await eventually(() => logged('reply').length > 0, 'the reply logged', 10_000);
    assert.equal(logged('command').at(-1)?.user, owner.userId);
    assert.equal(logged('reply').at(-1)?.ok, true);
    assert.ok((await auditEntriesOf(t, lock.id)).some((entry) => entry.type === 'DOOR_UNLOCK' && entry.actor_user_id === owner.userId));

    // A door opened, as told on stdin.
    child.stdin.write('open\n');
    await eventually(async () => (await auditEntriesOf(t, lock.id)).some((entry) => entry.type === 'DOOR_OPEN'), 'DOOR_OPEN audited', 10_000);

    // SIGTERM stops it with exit code 0, and the service sees it leave.
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0, stderr);
    await eventually(() => !t.service.ctx.link.isOnline(lock.id), 'the simulator offline', 10_000);
  });
});
