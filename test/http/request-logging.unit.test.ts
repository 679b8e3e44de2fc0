import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import pino from 'pino';
import { errors } from '../../src/errors/catalogue.js';
import { createHttpApp } from '../../src/http/app.js';

/** A service logger at `level` whose lines are collected. */
function collectingLogger(level: string): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}

async function failingRequest(level: string, thrown: Error = new Error('database on fire')) {
  const { logger, lines } = collectingLogger(level);
  const app = await createHttpApp({ logger, baseUrl: 'http://latchkey.test', trustProxy: [] });
  app.get('/boom', { config: { auth: 'none' } }, async () => {
    throw thrown;
  });
  const response = await app.inject({ method: 'GET', url: '/boom' });
  await app.close();
  return { response, lines };
}

describe('request logging', () => {
  for (const level of ['info', 'warn']) {
    it(`at ${level}, a 500 is logged once with its request id and error, and answers nothing of it`, async () => {
      const { response, lines } = await failingRequest(level);
      assert.equal(response.statusCode, 500);
      assert.ok(!response.body.includes('fire'));
      const failed = lines.filter((line) => line.msg === 'request failed');
      assert.equal(failed.length, 1, JSON.stringify(lines));
      assert.equal(failed[0]!.reqId, response.headers['x-request-id']);
      assert.match(String((failed[0]!.err as { message?: string }).message), /database on fire/);
    });
  }

  it('logs a known 5xx (a lock offline) as one warning without a stack, not as an error', async () => {
    const { response, lines } = await failingRequest('warn', errors.lockOffline());
    assert.equal(response.statusCode, 503);
    assert.deepEqual(
      lines.map((line) => [line.level, line.msg, line.status, line.error, 'err' in line]),
      [[40, 'request not served', 503, 'lock_offline', false]],
    );
  });

  it('logs a 500 thrown on purpose (errors.internal) as an error with its stack, like any other', async () => {
    const { response, lines } = await failingRequest('warn', errors.internal());
    assert.equal(response.statusCode, 500);
    const failed = lines.filter((line) => line.msg === 'request failed');
    assert.equal(failed.length, 1, JSON.stringify(lines));
    assert.equal(failed[0]!.level, 50);
    assert.match(String((failed[0]!.err as { stack?: string }).stack), /error-handler|catalogue|request-logging/);
  });

  it('writes the per-request lines at info, and none at warn', async () => {
    assert.ok((await failingRequest('info')).lines.some((line) => line.msg === 'incoming request'));
    assert.ok(!(await failingRequest('warn')).lines.some((line) => line.msg === 'incoming request' || line.msg === 'request completed'));
  });
});
