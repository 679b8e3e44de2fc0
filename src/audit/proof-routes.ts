import type { FastifyRequest } from 'fastify';
import type { Caller } from '../accounts/caller.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { errorResponses } from '../http/schemas.js';
import { LockIdParams, pathId } from '../ids/path-ids.js';
import { presentCheckpoint, presentCheckpointKey, presentProvenEntry } from './presenters-proofs.js';
import { checkpointKey, readCheckpoint, readConsistencyProof, readEntryProof, readLockLogProofs } from './proofs.js';
import { CheckpointKeyResponse, CheckpointResponse, ConsistencyQuery, ConsistencyResponse, EntryIdParams, EntryProofResponse, LogProofQuery, LogProofResponse, MAX_PROOF_PAGE, ProofQuery } from './schemas-proofs.js';

/**
 * The transparency-log side of the audit trail (docs/audit-log.md): signed checkpoints, their key
 * and consistency proofs for anyone (they reveal only sizes and hashes), inclusion proofs of
 * entries for those who may read them.
 */
/** An `auth: 'optional'` route's caller is unset when the request names none (or one that does not verify). */
const isAnonymous = (request: FastifyRequest): boolean => (request.caller as Caller | undefined) === undefined;

export function auditProofRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Loads (or creates) the signing key at start, and covers entries recorded while stopped.
    await ctx.checkpoints.start();

    // Anonymous callers get the checkpoint of the last public interval (issue 27 point 8).
    app.get('/audit/checkpoint', {
      config: { auth: 'optional' },
      schema: { tags: ['audit'], summary: 'The latest signed checkpoint of the audit log (anonymous callers: the newest signed by the last public interval, AUDIT_PUBLIC_CHECKPOINT_INTERVAL_S)', response: { 200: CheckpointResponse, ...errorResponses(404, 406) } },
      handler: async (request) => presentCheckpoint(await readCheckpoint(ctx, isAnonymous(request))),
    });

    app.get('/audit/checkpoint/key', {
      config: { auth: 'none' },
      schema: { tags: ['audit'], summary: 'The public key that signs audit checkpoints', response: { 200: CheckpointKeyResponse, ...errorResponses(406) } },
      handler: async () => presentCheckpointKey(await checkpointKey(ctx)),
    });

    app.get('/audit/proof/consistency', {
      config: { auth: 'optional' },
      schema: { tags: ['audit'], summary: 'Consistency proof between two sizes of the audit log (RFC 9162 §2.1.4)', querystring: ConsistencyQuery, response: { 200: ConsistencyResponse, ...errorResponses(400, 406) } },
      handler: async (request) => {
        const { from, to } = request.query;
        const proof = await readConsistencyProof(ctx, from, to, isAnonymous(request));
        return { from, to, proof: proof.map((h) => h.toString('base64')) };
      },
    });

    app.get('/device/:lockId/log/proof', {
      schema: {
        tags: ['audit'],
        summary: "A lock's audit entries, newest first, each with its inclusion proof (those who may read the lock's log); pages of at most 100, `next` names the following one",
        params: LockIdParams,
        querystring: LogProofQuery,
        response: { 200: LogProofResponse, ...errorResponses(400, 401, 403, 404, 406) },
      },
      handler: async (request) => {
        const { start, end, limit, cursor, treeSize: asked } = request.query;
        const page = { start, end, limit: Math.min(limit ?? MAX_PROOF_PAGE, MAX_PROOF_PAGE), beforeSeq: cursor === undefined ? undefined : Number(cursor) };
        const { treeSize, entries, next } = await readLockLogProofs(ctx, request.caller, pathId(request.params.lockId, 'lock'), page, asked);
        return { treeSize, entries: entries.map(presentProvenEntry), next };
      },
    });

    app.get('/audit/entries/:entryId/proof', {
      schema: { tags: ['audit'], summary: "One audit entry's inclusion proof (404 unless the caller may read its lock's log)", params: EntryIdParams, querystring: ProofQuery, response: { 200: EntryProofResponse, ...errorResponses(400, 401, 404, 406) } },
      handler: async (request) => {
        const { treeSize, entry } = await readEntryProof(ctx, request.caller, pathId(request.params.entryId, 'entry'), request.query.treeSize);
        return { treeSize, entry: presentProvenEntry(entry) };
      },
    });
  };
}
