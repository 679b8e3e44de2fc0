import { Duplex } from 'node:stream';

/**
 * Two connected in-memory streams: what is written to one is read from the other, like the two
 * ends of a socket without the kernel between them (Node 20 has no `stream.duplexPair`). Ending
 * one end ends the other's readable side; destroying one destroys the other, as a dropped
 * connection would. A writer waits while its peer holds more than a buffer's worth unread.
 */
export function inMemoryPipe(): [Duplex, Duplex] {
  const ends: PipeEnd[] = [];
  const peerOf = (end: PipeEnd): PipeEnd => (end === ends[0] ? ends[1]! : ends[0]!);
  ends.push(new PipeEnd(peerOf), new PipeEnd(peerOf));
  return [ends[0]!, ends[1]!];
}

class PipeEnd extends Duplex {
  /** The write waiting for the peer to read (backpressure), if any. */
  private blocked: (() => void) | null = null;

  constructor(private readonly peerOf: (end: PipeEnd) => PipeEnd) {
    super();
  }

  override _read(): void {
    // The peer may write again now that this end is reading.
    this.peerOf(this).release();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.deliver(chunk, callback);
  }

  override _writev(chunks: Array<{ chunk: Buffer }>, callback: (error?: Error | null) => void): void {
    // A corked burst (an MQTT packet written in pieces) arrives as one chunk.
    this.deliver(Buffer.concat(chunks.map(({ chunk }) => chunk)), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.peerOf(this).push(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.release();
    const peer = this.peerOf(this);
    if (!peer.destroyed) peer.destroy();
    callback(error);
  }

  private deliver(chunk: Buffer, callback: () => void): void {
    const peer = this.peerOf(this);
    if (peer.destroyed) return callback();
    if (peer.push(chunk)) callback();
    else this.blocked = callback;
  }

  private release(): void {
    const blocked = this.blocked;
    this.blocked = null;
    blocked?.();
  }
}
