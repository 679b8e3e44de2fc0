import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatementBatch } from '../../src/db/statement-batch.js';
import { eventually } from '../helpers/wait.js';

/** A send that answers each item doubled once the test lets it (`release`), failing on `fail`'s items. */
function controlledSend(fail: (item: number) => boolean = () => false) {
  const sent: number[][] = [];
  const pending: Array<() => void> = [];
  let away = 0;
  let mostAway = 0;
  const send = (items: number[]): Promise<number[]> => {
    sent.push(items);
    away += 1;
    mostAway = Math.max(mostAway, away);
    return new Promise((resolve, reject) => {
      pending.push(() => {
        away -= 1;
        if (items.some(fail)) reject(new Error(`failed: ${items.join(',')}`));
        else resolve(items.map((item) => item * 2));
      });
    });
  };
  /** Answers the batches sent so far, then waits for the batch to send what is waiting. */
  const release = async () => {
    for (const answer of pending.splice(0)) answer();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { send, sent, release, mostAway: () => mostAway };
}

describe('a statement batch (group commit by statement)', () => {
  it('sends the calls of one turn as one batch, in order, and answers each its own result', async () => {
    const { send, sent, release } = controlledSend();
    const batch = new StatementBatch(send, { separable: () => true });
    const results = Promise.all([1, 2, 3].map((item) => batch.run(item)));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(sent, [[1, 2, 3]]);
    await release();
    assert.deepEqual(await results, [2, 4, 6]);
  });

  it('keeps one batch away at a time: calls made meanwhile go together in the next', async () => {
    const { send, sent, release, mostAway } = controlledSend();
    const batch = new StatementBatch(send, { separable: () => true });
    const first = batch.run(1);
    await new Promise((resolve) => setImmediate(resolve));
    const later = [batch.run(2), batch.run(3)];
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(sent, [[1]], 'nothing more is sent while the first batch is away');
    await release();
    assert.equal(await first, 2);
    assert.deepEqual(sent, [[1], [2, 3]]);
    await release();
    assert.deepEqual(await Promise.all(later), [4, 6]);
    assert.equal(mostAway(), 1);
  });

  it('sends no more than its most items in one batch', async () => {
    const { send, sent, release } = controlledSend();
    const batch = new StatementBatch(send, { separable: () => true, maxItems: 2 });
    const results = Promise.all([1, 2, 3, 4, 5].map((item) => batch.run(item)));
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 3; i++) await release();
    assert.deepEqual(await results, [2, 4, 6, 8, 10]);
    assert.deepEqual(sent, [[1, 2], [3, 4], [5]]);
  });

  it('sends a failed batch again one call at a time, so only the failing call fails', async () => {
    const { send, sent, release } = controlledSend((item) => item === 2);
    const batch = new StatementBatch(send, { separable: () => true });
    const results = [1, 2, 3].map((item) => batch.run(item).then((value) => ({ value }), (error: Error) => ({ error: error.message })));
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 4; i++) await release();
    assert.deepEqual(await Promise.all(results), [{ value: 2 }, { error: 'failed: 2' }, { value: 6 }]);
    assert.deepEqual(sent, [[1, 2, 3], [1], [2], [3]]);
  });

  it('fails every call of a batch whose failure may have followed its commit (the connection lost): nothing is sent again', async () => {
    const { send, sent, release } = controlledSend((item) => item === 2);
    const batch = new StatementBatch(send, { separable: () => false });
    const results = Promise.allSettled([1, 2, 3].map((item) => batch.run(item)));
    await new Promise((resolve) => setImmediate(resolve));
    await release();
    assert.deepEqual((await results).map((result) => result.status === 'rejected' && String(result.reason)), ['Error: failed: 1,2,3', 'Error: failed: 1,2,3', 'Error: failed: 1,2,3']);
    assert.deepEqual(sent, [[1, 2, 3]]);
  });

  it('fails every call of a batch that answers a different number of results, without sending it again', async () => {
    let sends = 0;
    const batch = new StatementBatch<number, number>(async (items) => {
      sends += 1;
      return items.slice(1);
    }, { separable: () => true });
    const results = await Promise.allSettled([batch.run(1), batch.run(2)]);
    assert.deepEqual(results.map((result) => result.status), ['rejected', 'rejected']);
    assert.match(String((results[0] as PromiseRejectedResult).reason), /2 items answered 1 results/);
    assert.equal(sends, 1);
  });

  it('fails the calls of a batch the database does not answer, and sends the next batch', async () => {
    const answers: Array<(results: number[]) => void> = [];
    const batch = new StatementBatch<number, number>((items) => new Promise((resolve) => answers.push(() => resolve(items))), { separable: () => true, answerWithinMs: 20 });
    await assert.rejects(batch.run(1), /no answer from the database within 20 ms/);
    const next = batch.run(2);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(answers.length, 2, 'the next batch went while the first is still unanswered');
    answers[0]!([1]);
    answers[1]!([2]);
    assert.equal(await next, 2);
  });

  it('leaves at most one unanswered batch behind: while it is away, a second one unanswered holds the next batch until the first ends', async () => {
    const answers: Array<(results: number[]) => void> = [];
    const batch = new StatementBatch<number, number>((items) => new Promise((resolve) => answers.push(() => resolve(items))), { separable: () => true, answerWithinMs: 20 });
    await assert.rejects(batch.run(1), /no answer/);
    await assert.rejects(batch.run(2), /no answer/);
    const third = batch.run(3);
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(answers.length, 2, 'the third batch waits for the first to end');
    answers[0]!([1]);
    await eventually(() => answers.length === 3, 'the third batch sent');
    answers[2]!([3]);
    assert.equal(await third, 3);
    answers[1]!([2]);
  });

  it('goes on after a failure: a later call is sent and answered', async () => {
    let calls = 0;
    const batch = new StatementBatch<number, number>(async (items) => {
      calls += 1;
      if (calls === 1) throw new Error('the database went away');
      return items;
    }, { separable: () => false });
    await assert.rejects(batch.run(1), /went away/);
    assert.equal(await batch.run(7), 7);
  });
});
