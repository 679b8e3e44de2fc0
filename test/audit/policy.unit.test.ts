import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { userLogScope } from '../../src/audit/policy.js';

describe('userLogScope', () => {
  it('shows a user all of their own log', () => {
    assert.equal(userLogScope('u1', 'u1', false), 'all');
  });

  it('shows an admin of one of their locks only the administered part', () => {
    assert.equal(userLogScope('admin', 'u1', true), 'administered');
  });

  it('hides the user from anyone else', () => {
    assert.equal(userLogScope('stranger', 'u1', false), 'not_found');
  });
});
