import { Type, type Static } from '@sinclair/typebox';
import { LogQuery } from './schemas.js';

const Base64Hash = Type.String({ description: 'a SHA-256 hash, Base64' });

export const CheckpointResponse = Type.Object({
  checkpoint: Type.String({ description: 'the signed note (C2SP tlog-checkpoint), exactly as signed; keep it elsewhere' }),
  origin: Type.String(),
  treeSize: Type.Integer({ minimum: 0 }),
  rootHash: Base64Hash,
  verifierKey: Type.String({ description: 'signed-note verifier key: <origin>+<key id>+<Base64(0x01 || Ed25519 key)>' }),
});

export const CheckpointKeyResponse = Type.Object({
  origin: Type.String(),
  verifierKey: Type.String({ description: 'signed-note verifier key: <origin>+<key id>+<Base64(0x01 || Ed25519 key)>' }),
  publicKey: Type.String({ description: 'the raw 32-byte Ed25519 public key, Base64' }),
  algorithm: Type.Literal('Ed25519'),
});

export const ConsistencyQuery = Type.Object({
  from: Type.Integer({ minimum: 1, description: 'the smaller tree size (a checkpoint kept earlier)' }),
  to: Type.Integer({ minimum: 1, description: 'the larger tree size' }),
});
export type ConsistencyQuery = Static<typeof ConsistencyQuery>;

export const ConsistencyResponse = Type.Object({
  from: Type.Integer(),
  to: Type.Integer(),
  proof: Type.Array(Base64Hash, { description: 'RFC 9162 §2.1.4 consistency proof' }),
});

export const ProofQuery = Type.Object({
  treeSize: Type.Optional(Type.Integer({ minimum: 1, description: 'prove against this tree size (default: the latest signed checkpoint)' })),
});

/** The most entries one page with proofs returns: each proof is a read of its own. */
export const MAX_PROOF_PAGE = 100;

export const LogProofQuery = Type.Composite([
  Type.Omit(LogQuery, ['limit']),
  ProofQuery,
  Type.Object({
    limit: Type.Optional(Type.Integer({ minimum: 1, description: `entries per page, at most ${MAX_PROOF_PAGE} (a larger limit is lowered to it); default ${MAX_PROOF_PAGE}` })),
    cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', description: 'the `next` of the previous page: continue with the entries older than it (same start, end and treeSize)' })),
  }),
]);
export type LogProofQuery = Static<typeof LogProofQuery>;

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** An entry with what recomputing its leaf needs (docs/audit-log.md) and its inclusion proof. */
export const ProvenEntry = Type.Object({
  id: Type.String(),
  leafIndex: Type.Union([Type.Integer(), Type.Null()]),
  lockId: Type.String(),
  timestamp: Type.Number(),
  type: Type.String(),
  actorUserId: NullableString,
  subjectUserId: NullableString,
  actorEmail: Type.Union([Type.String(), Type.Null()], { description: "the actor's email as recorded (hashed when hashVersion is 2)" }),
  actorDisplayName: Type.Union([Type.String(), Type.Null()], { description: "the actor's display name as recorded (hashed when hashVersion is 2)" }),
  subjectEmail: Type.Union([Type.String(), Type.Null()], { description: "the subject's email as recorded (hashed when hashVersion is 2)" }),
  subjectDisplayName: Type.Union([Type.String(), Type.Null()], { description: "the subject's display name as recorded (hashed when hashVersion is 2)" }),
  actorIp: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "the address of the actor's request (hashVersion 3 only)" })),
  userAgent: Type.Optional(Type.Union([Type.Object({ type: Type.String(), version: Type.Union([Type.String(), Type.Null()]) }), Type.Null()], { description: 'the official SDK the actor used (hashVersion 3 only)' })),
  rejected: Type.Boolean(),
  message: Type.String(),
  details: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  previousHash: Type.String({ description: "hex chain hash of the lock's previous entry" }),
  hash: Type.String({ description: 'hex chain hash of this entry: the leaf data' }),
  hashVersion: Type.Integer({ description: 'the preimage format of `hash` ("v"): 1 for entries recorded before actor snapshots, 2 before client fields, 3 since (docs/audit-log.md)' }),
  proof: Type.Union([Type.Array(Base64Hash), Type.Null()], { description: 'RFC 9162 §2.1.3 inclusion proof; null when the entry is not in the tree of treeSize' }),
  preimage: Type.Union([Type.String(), Type.Null()], {
    description: "the exact text whose SHA-256 is `hash` (RFC 8785 JSON of the hashed fields, format version `v`), rebuilt from the stored row; null when the row cannot be read. Hash it and compare the fields you show with it",
  }),
});

export const LogProofResponse = Type.Object({
  treeSize: Type.Integer(),
  entries: Type.Array(ProvenEntry),
  next: Type.Union([Type.String(), Type.Null()], {
    description: `null when this page ends the entries asked for; else more match (start, end) than the page holds (${MAX_PROOF_PAGE} at most): ask again with cursor=next`,
  }),
});
export const EntryProofResponse = Type.Object({ treeSize: Type.Integer(), entry: ProvenEntry });
export const EntryIdParams = Type.Object({ entryId: Type.String() });
