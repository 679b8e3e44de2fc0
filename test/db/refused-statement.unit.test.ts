import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isRefusedStatement } from '../../src/db/errors.js';

/**
 * Which failures of a batch of lock writes (src/db/statement-batch.ts) are sent again item by item:
 * only a statement PostgreSQL refused, which wrote nothing; never one whose commit may have happened.
 */
describe('a statement PostgreSQL refused (isRefusedStatement)', () => {
  it('is a data exception, a constraint, a PL/pgSQL raise, a deadlock or a serialization failure', () => {
    for (const code of ['22P02', '22021', '23505', '23503', 'P0001', '40P01', '40001']) assert.equal(isRefusedStatement({ code, severity: 'ERROR' }), true, code);
    // The severity is in the server's language: the SQLSTATE alone decides.
    assert.equal(isRefusedStatement({ code: '23505', severity: 'FEHLER' }), true);
  });

  it('is not a lost connection, a statement whose completion is unknown, a shutdown or anything without a SQLSTATE', () => {
    for (const code of ['08006', '08003', '40003', '57P01', '57014', '53300', 'XX000']) assert.equal(isRefusedStatement({ code, severity: 'ERROR' }), false, code);
    for (const error of [new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' }, { code: 'SQLITE_CONSTRAINT_UNIQUE' }, null, 'error']) {
      assert.equal(isRefusedStatement(error), false, String(error));
    }
  });
});
