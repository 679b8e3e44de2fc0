import { presentProvenEntry } from '../audit/presenters-proofs.js';
import { entryUnderLatestCheckpoint } from '../audit/proofs.js';
import type { Executor } from '../db/transaction.js';
import { TEST_EVENT_TYPE } from './event-types.js';
import type { DeliveryRow } from './queries.js';

/**
 * The body of a delivery (its schemas: src/webhooks/schemas.ts). One that comes from an audit
 * entry carries the entry as the proof routes show it (with its preimage, leaf index and
 * inclusion proof) and the latest signed checkpoint, read at each attempt: 'uncovered' while no
 * checkpoint covers the entry yet (the attempt waits for the signer).
 */
export async function deliveryBody(db: Executor, delivery: DeliveryRow): Promise<string | 'uncovered' | null> {
  if (delivery.audit_seq === null) return delivery.payload;
  const proven = await entryUnderLatestCheckpoint(db, Number(delivery.audit_seq));
  if (proven === null || proven === 'uncovered') return proven;
  const { entry, checkpoint } = proven;
  return JSON.stringify({
    type: delivery.event_type,
    timestamp: new Date(entry.row.timestamp * 1000).toISOString(),
    data: {
      lockId: entry.row.lock_id,
      entry: presentProvenEntry(entry),
      checkpoint: { checkpoint: checkpoint.note, treeSize: checkpoint.treeSize, rootHash: checkpoint.rootHash.toString('base64') },
    },
  });
}

export function testEventBody(endpointId: string, at: number): string {
  return JSON.stringify({
    type: TEST_EVENT_TYPE,
    timestamp: new Date(at * 1000).toISOString(),
    data: { endpointId, message: 'a test event from Latchkey' },
  });
}
