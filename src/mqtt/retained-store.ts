import { Readable } from 'node:stream';

/**
 * The embedded broker's retained messages, kept by topic. aedes' in-memory persistence answers a
 * SUBSCRIBE by testing every retained topic against each filter (a fresh matcher per filter): with
 * three retained messages a lock (online, state, config), each lock's subscription to its own two
 * topics cost a walk over the whole fleet's, 2.4 billion topic tests for 20,000 locks coming back
 * at once (docs/scaling.md, Fleet). A filter without wildcards, which is all a lock may subscribe
 * to, is now one map look-up; a wildcard filter (the service's own link, once at start) still walks.
 */

/** What aedes hands its persistence to retain (its Packet; only these fields are read back). */
export interface RetainedPacket {
  topic: string;
  payload: Buffer | string;
}

/** The part of aedes' persistence that keeps retained messages, as aedes calls it. */
export interface RetainedPersistence {
  storeRetained(packet: RetainedPacket): Promise<void>;
  createRetainedStream(filter: string): Readable;
  createRetainedStreamCombi(filters: string[]): Readable;
}

const hasWildcard = (filter: string): boolean => filter.includes('+') || filter.includes('#');

/** Whether `topic` matches the MQTT filter `filter` (MQTT 3.1.1 §4.7; a wildcard first level never matches a `$` topic). */
export function topicMatches(filter: string, topic: string): boolean {
  if (!hasWildcard(filter)) return filter === topic;
  if (topic.startsWith('$') && (filter.startsWith('+') || filter.startsWith('#'))) return false;
  const levels = filter.split('/');
  const words = topic.split('/');
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i];
    if (level === '#') return true;
    if (i >= words.length) return false;
    if (level !== '+' && level !== words[i]) return false;
  }
  return levels.length === words.length;
}

/** Retained messages by topic; stands in for the persistence's own (which then holds none). */
export class RetainedStore {
  private readonly byTopic = new Map<string, RetainedPacket>();

  /** An empty payload deletes the topic's retained message (MQTT 3.1.1 §3.3.1.3). */
  store(packet: RetainedPacket): void {
    if (packet.payload.length === 0) this.byTopic.delete(packet.topic);
    // A copy, as aedes' own store keeps: the packet object goes on to be routed.
    else this.byTopic.set(packet.topic, { ...packet });
  }

  *matching(filters: readonly string[]): Generator<RetainedPacket> {
    for (const filter of filters) {
      if (!hasWildcard(filter)) {
        const packet = this.byTopic.get(filter);
        if (packet !== undefined) yield packet;
        continue;
      }
      for (const [topic, packet] of this.byTopic) if (topicMatches(filter, topic)) yield packet;
    }
  }

  get size(): number {
    return this.byTopic.size;
  }

  /** Makes `persistence` keep its retained messages here. */
  replaceIn(persistence: RetainedPersistence): void {
    persistence.storeRetained = (packet) => {
      this.store(packet);
      return Promise.resolve();
    };
    persistence.createRetainedStream = (filter) => Readable.from(this.matching([filter]));
    persistence.createRetainedStreamCombi = (filters) => Readable.from(this.matching(filters));
  }
}
