import type { Duplex } from 'node:stream';

export interface PacketLimits {
  /** Largest first packet (CONNECT, read before the client has logged in), in bytes. */
  firstLimit: number;
  /** Largest later packet. */
  limit: number;
}

/**
 * Follows the MQTT packets in a byte stream by their fixed headers (MQTT 3.1.1 §2.2), skipping
 * bodies, to tell as soon as a header is read whether its packet exceeds the limit.
 */
export class PacketSizeMeter {
  /** Bytes of the current packet's body still to come. */
  private bodyLeft = 0;
  /** Reading a header: -1 before its type byte, else the remaining-length bytes read so far. */
  private headerBytes = -1;
  private length = 0;
  private multiplier = 1;
  private packets = 0;

  constructor(private readonly limits: PacketLimits) {}

  /** Takes the next bytes; false once a packet announces more than its limit (or a malformed length). */
  accept(chunk: Uint8Array): boolean {
    let at = 0;
    while (at < chunk.length) {
      if (this.bodyLeft > 0) {
        const take = Math.min(this.bodyLeft, chunk.length - at);
        this.bodyLeft -= take;
        at += take;
      } else if (this.headerBytes === -1) {
        // The packet's type and flags byte.
        this.headerBytes = 0;
        this.length = 0;
        this.multiplier = 1;
        at++;
      } else {
        const byte = chunk[at++]!;
        this.length += (byte & 0x7f) * this.multiplier;
        this.multiplier *= 128;
        this.headerBytes++;
        if (byte & 0x80 && this.headerBytes < 4) continue;
        if (byte & 0x80 || this.length > (this.packets === 0 ? this.limits.firstLimit : this.limits.limit)) return false;
        this.packets++;
        this.bodyLeft = this.length;
        this.headerBytes = -1;
      }
    }
    return true;
  }
}

/**
 * Caps the size of the MQTT packets a network client may send to the embedded broker. aedes has
 * no such limit: its parser buffers a whole packet (up to the protocol's 256 MB) before anything
 * looks at it, the first one before the client has even logged in. aedes takes its input with
 * `read()`, so the socket's own `read` is wrapped to look at each chunk on the way: a packet over
 * the limit destroys the socket before the parser sees it. A guarding stream piped in between
 * cost more per unlock than anything it guards against (docs/decisions.md, Performance).
 */
export function guardPacketSizes(socket: Duplex, limits: PacketLimits): Duplex {
  const meter = new PacketSizeMeter(limits);
  const read = socket.read.bind(socket);
  socket.read = (size?: number) => {
    const chunk = read(size) as Buffer | null;
    if (chunk === null || meter.accept(chunk)) return chunk;
    socket.destroy();
    return null;
  };
  return socket;
}
