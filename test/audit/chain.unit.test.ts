import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  GENESIS_HASH, auditEntryHash, auditEntryPreimage, canonicalJson, verifyChain, type AuditHashInput, type ChainedAuditEntry,
} from '../../src/audit/chain.js';

type V1Input = Extract<AuditHashInput, { version: 1 }>;
type V2Input = Extract<AuditHashInput, { version: 2 }>;

/** An entry in format 1 (recorded before migration 0014). */
function entry(overrides: Partial<V1Input> = {}): V1Input {
  return {
    version: 1, lockId: 'lock-1', timestamp: 1_700_000_000, type: 'OWNER_ASSIGNED', actorUserId: 'user-1', subjectUserId: null,
    rejected: false, message: '', ...overrides,
  };
}

/** An entry in format 2 (the current one), with who its actor and subject were. */
function entryV2(overrides: Partial<V2Input> = {}): V2Input {
  return {
    ...entry(), version: 2, actorEmail: 'ann@example.com', actorDisplayName: 'Ann', subjectEmail: null, subjectDisplayName: null, ...overrides,
  };
}

/** A valid chain of `n` entries, each hashed onto the previous one, as a store would hold them. */
function chain(n: number): ChainedAuditEntry[] {
  const out: ChainedAuditEntry[] = [];
  let previousHash: string | null = null;
  for (let i = 0; i < n; i += 1) {
    const fields = entry({ timestamp: 1_700_000_000 + i * 1.5, type: i % 2 ? 'DEVICE_UNLOCKED' : 'DEVICE_LOCKED', details: { n: i } });
    const hash = auditEntryHash(previousHash, fields);
    out.push({ ...fields, id: `entry-${i}`, hash, previousHash });
    previousHash = hash;
  }
  return out;
}

describe('canonicalJson', () => {
  it('sorts keys recursively, keeps array order and writes no whitespace', () => {
    assert.equal(canonicalJson({ b: [3, { z: 1, a: 2 }], a: 'x', c: null, d: undefined }), '{"a":"x","b":[3,{"a":2,"z":1}],"c":null}');
  });

  it('writes numbers as JavaScript does', () => {
    assert.equal(canonicalJson([1.5, 1e21, 0.1, -0, 1700000000.25]), '[1.5,1e+21,0.1,0,1700000000.25]');
  });

  it('refuses non-finite numbers and values JSON cannot hold', () => {
    assert.throws(() => canonicalJson(Number.NaN), TypeError);
    assert.throws(() => canonicalJson(10n), TypeError);
  });
});

describe('auditEntryHash', () => {
  it('hashes the documented byte format, so an auditor can recompute it', () => {
    const preimage = auditEntryPreimage(null, entry());
    assert.equal(
      preimage,
      `{"actorUserId":"user-1","lockId":"lock-1","message":"","previousHash":"${'0'.repeat(64)}","rejected":false,"subjectUserId":null,"timestamp":1700000000,"type":"OWNER_ASSIGNED","v":1}`,
    );
    assert.equal(auditEntryHash(null, entry()), createHash('sha256').update(preimage, 'utf8').digest('hex'));
    assert.match(auditEntryHash(null, entry()), /^[0-9a-f]{64}$/);
  });

  it('uses the genesis hash as the previous hash of a first entry', () => {
    assert.equal(auditEntryHash(null, entry()), auditEntryHash(GENESIS_HASH, entry()));
  });

  it('changes with every field and with the previous hash', () => {
    const base = auditEntryHash(null, entry());
    const variants: Partial<V1Input>[] = [
      { lockId: 'lock-2' }, { timestamp: 1_700_000_000.001 }, { type: 'OWNER_REMOVED' }, { actorUserId: null }, { actorUserId: 'user-2' },
      { subjectUserId: 'user-1' }, { rejected: true }, { message: 'x' }, { details: {} }, { details: { reason: 'outside permitted times' } },
    ];
    for (const variant of variants) assert.notEqual(auditEntryHash(null, entry(variant)), base, JSON.stringify(variant));
    assert.notEqual(auditEntryHash('a'.repeat(64), entry()), base);
  });

  it('does not depend on key order or on a JSON round trip of details', () => {
    const details = { when: new Date(0), nested: { b: 2, a: 1 }, skipped: undefined };
    const stored = JSON.parse(JSON.stringify(details)) as object;
    const reordered = { nested: { a: 1, b: 2 }, when: '1970-01-01T00:00:00.000Z' };
    const hash = auditEntryHash(null, entry({ details }));
    assert.equal(auditEntryHash(null, entry({ details: stored })), hash);
    assert.equal(auditEntryHash(null, entry({ details: reordered })), hash);
  });

  it('treats absent and null details alike', () => {
    assert.equal(auditEntryHash(null, entry({ details: null })), auditEntryHash(null, entry()));
  });

  it('rejects fields of the wrong type rather than hashing them', () => {
    assert.throws(() => auditEntryHash(null, { ...entry(), timestamp: Number.NaN }), TypeError);
    assert.throws(() => auditEntryHash(null, { ...entry(), rejected: 'no' as unknown as boolean }), TypeError);
  });
});

describe('auditEntryHash, format 2 (who the actor and subject were)', () => {
  it('hashes the documented byte format (the example of chain.ts)', () => {
    const preimage = auditEntryPreimage(null, entryV2({ actorUserId: 'u1', lockId: 'l1' }));
    assert.equal(
      preimage,
      `{"actorDisplayName":"Ann","actorEmail":"ann@example.com","actorUserId":"u1","lockId":"l1","message":"","previousHash":"${'0'.repeat(64)}",` +
        '"rejected":false,"subjectDisplayName":null,"subjectEmail":null,"subjectUserId":null,"timestamp":1700000000,"type":"OWNER_ASSIGNED","v":2}',
    );
    assert.equal(auditEntryHash(null, entryV2({ actorUserId: 'u1', lockId: 'l1' })), createHash('sha256').update(preimage, 'utf8').digest('hex'));
  });

  it('changes with each of the four recorded fields, null and empty told apart', () => {
    const base = auditEntryHash(null, entryV2());
    const variants: Partial<V2Input>[] = [
      { actorEmail: 'ann@example.org' }, { actorEmail: null }, { actorDisplayName: 'Anne' }, { actorDisplayName: '' }, { actorDisplayName: null },
      { subjectEmail: 'bob@example.com' }, { subjectEmail: '' }, { subjectDisplayName: 'Bob' },
    ];
    const hashes = new Set([base, ...variants.map((variant) => auditEntryHash(null, entryV2(variant)))]);
    assert.equal(hashes.size, variants.length + 1);
  });

  it('never hashes a format-2 entry like its format-1 counterpart, even with every recorded field null', () => {
    const blank = entryV2({ actorEmail: null, actorDisplayName: null });
    assert.notEqual(auditEntryHash(null, blank), auditEntryHash(null, entry()));
  });

  it('refuses a format-1 entry that carries a recorded field (it would not be protected), a format-2 entry missing one, and other versions', () => {
    assert.throws(() => auditEntryHash(null, { ...entry(), actorEmail: 'ann@example.com' } as unknown as AuditHashInput), /actorEmail/);
    const { subjectDisplayName: _left, ...missing } = entryV2();
    assert.throws(() => auditEntryHash(null, missing as unknown as AuditHashInput), /subjectDisplayName/);
    assert.throws(() => auditEntryHash(null, entryV2({ actorEmail: 5 as unknown as string })), /actorEmail/);
    assert.throws(() => auditEntryHash(null, { ...entryV2(), version: 4 } as unknown as AuditHashInput), /version/);
  });
});

/** Format-1 entries followed by format-2 ones, as a trail older than migration 0014 grows. */
function mixedChain(): ChainedAuditEntry[] {
  const out: ChainedAuditEntry[] = [];
  let previousHash: string | null = null;
  for (let i = 0; i < 4; i += 1) {
    const fields: AuditHashInput = i < 2 ? entry({ timestamp: 1_700_000_000 + i }) : entryV2({ timestamp: 1_700_000_000 + i, subjectUserId: 'user-2', subjectEmail: 'bob@example.com', subjectDisplayName: 'Bob' });
    const hash = auditEntryHash(previousHash, fields);
    out.push({ ...fields, id: `entry-${i}`, hash, previousHash });
    previousHash = hash;
  }
  return out;
}

describe('verifyChain', () => {
  it('accepts a chain that moves from format 1 to format 2, and finds a recorded field changed in a format-2 entry', () => {
    assert.equal(verifyChain(mixedChain()).ok, true);
    for (const change of [{ actorEmail: 'someone@example.com' }, { actorDisplayName: 'Someone' }, { subjectEmail: null }, { subjectDisplayName: 'Robert' }]) {
      const entries = mixedChain();
      entries[3] = { ...entries[3]!, ...change } as ChainedAuditEntry;
      assert.deepEqual(verifyChain(entries), { ok: false, brokenAt: 3, entryId: 'entry-3', reason: 'hash mismatch' }, JSON.stringify(change));
    }
  });

  it('finds a format-2 entry passed off as format 1 (its recorded fields then unhashed)', () => {
    const entries = mixedChain();
    const { actorEmail: _a, actorDisplayName: _b, subjectEmail: _c, subjectDisplayName: _d, ...rest } = entries[2] as Extract<ChainedAuditEntry, { version: 2 }>;
    entries[2] = { ...rest, version: 1 };
    assert.deepEqual(verifyChain(entries), { ok: false, brokenAt: 2, entryId: 'entry-2', reason: 'hash mismatch' });
  });

  it('accepts an untouched chain and an empty one', () => {
    const entries = chain(5);
    assert.deepEqual(verifyChain(entries), { ok: true, count: 5, lastHash: entries[4]!.hash });
    assert.deepEqual(verifyChain([]), { ok: true, count: 0, lastHash: null });
  });

  it('accepts entries without a stored previous hash', () => {
    const entries = chain(3).map(({ previousHash: _omitted, ...rest }) => rest);
    assert.equal(verifyChain(entries).ok, true);
  });

  it('detects an altered field, at the altered entry', () => {
    for (const change of [{ message: 'edited' }, { rejected: true }, { actorUserId: 'intruder' }, { timestamp: 1 }, { details: { n: 99 } }]) {
      const entries = chain(5);
      entries[2] = { ...entries[2]!, ...change };
      assert.deepEqual(verifyChain(entries), { ok: false, brokenAt: 2, entryId: 'entry-2', reason: 'hash mismatch' }, JSON.stringify(change));
    }
  });

  it('detects an altered field even when the altered entry is rehashed (the next entry breaks)', () => {
    const entries = chain(5);
    const forged = { ...entries[2]!, message: 'edited' };
    forged.hash = auditEntryHash(entries[1]!.hash, forged);
    entries[2] = forged;
    const result = verifyChain(entries);
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.brokenAt, 3);
  });

  it('detects a removed entry', () => {
    const entries = chain(5);
    entries.splice(2, 1);
    assert.deepEqual(verifyChain(entries), { ok: false, brokenAt: 2, entryId: 'entry-3', reason: 'previous hash mismatch' });
    const withoutPrevious = chain(5).map(({ previousHash: _omitted, ...rest }) => rest);
    withoutPrevious.splice(0, 1);
    assert.deepEqual(verifyChain(withoutPrevious), { ok: false, brokenAt: 0, entryId: 'entry-1', reason: 'hash mismatch' });
  });

  it('detects reordering', () => {
    const entries = chain(5);
    [entries[1], entries[3]] = [entries[3]!, entries[1]!];
    const result = verifyChain(entries);
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.brokenAt, 1);
  });

  it('detects an entry of another lock in the chain', () => {
    const entries = chain(3);
    entries[1] = { ...entries[1]!, lockId: 'lock-2' };
    assert.deepEqual(verifyChain(entries), { ok: false, brokenAt: 1, entryId: 'entry-1', reason: 'different lock' });
  });

  it('detects an altered stored hash', () => {
    const entries = chain(3);
    entries[2] = { ...entries[2]!, hash: 'f'.repeat(64) };
    assert.deepEqual(verifyChain(entries), { ok: false, brokenAt: 2, entryId: 'entry-2', reason: 'hash mismatch' });
  });

  it('verifies in pages when given the last hash of the previous page', () => {
    const entries = chain(6);
    const first = verifyChain(entries.slice(0, 3));
    assert.equal(first.ok, true);
    assert.deepEqual(verifyChain(entries.slice(3), { previousHash: first.ok ? first.lastHash : null }), { ok: true, count: 3, lastHash: entries[5]!.hash });
    assert.equal(verifyChain(entries.slice(3)).ok, false); // not the start of a chain
  });
});
