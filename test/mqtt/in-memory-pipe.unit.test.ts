import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { inMemoryPipe } from '../../src/mqtt/in-memory-pipe.js';

describe('inMemoryPipe', () => {
  it('carries bytes both ways, corked writes as one chunk', async () => {
    const [a, b] = inMemoryPipe();
    const readByB: Buffer[] = [];
    b.on('data', (chunk: Buffer) => readByB.push(chunk));
    a.cork();
    a.write('he');
    a.write('llo');
    a.uncork();
    b.write('back');
    const [fromB] = (await once(a, 'data')) as [Buffer];
    assert.equal(fromB.toString(), 'back');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(readByB.map(String), ['hello']);
  });

  it('ends the other side\'s reading when one side ends', async () => {
    const [a, b] = inMemoryPipe();
    b.resume();
    a.end('last');
    await once(b, 'end');
  });

  it('destroys the other end too, as a dropped connection would', async () => {
    const [a, b] = inMemoryPipe();
    const closed = once(b, 'close');
    a.destroy();
    await closed;
    assert.equal(b.destroyed, true);
  });

  it('holds a writer back while the reader has not read, then lets it go on', async () => {
    const [a, b] = inMemoryPipe();
    const big = Buffer.alloc(64 * 1024, 1);
    let written = 0;
    const writing = new Promise<void>((resolve) => {
      const next = (): void => {
        if (written === 8) return resolve();
        written += 1;
        if (a.write(big)) next();
        else a.once('drain', next);
      };
      next();
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(written < 8, 'the writer should be waiting for the reader');
    let received = 0;
    b.on('data', (chunk: Buffer) => (received += chunk.length));
    await writing;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(received, 8 * big.length);
  });
});
