import { Duplex, Transform, type TransformCallback } from 'node:stream';

/**
 * Caps the size of the MQTT packets a network client may send to the embedded broker. aedes has
 * no such limit: its parser buffers a whole packet (up to the protocol's 256 MB) before anything
 * looks at it, the first one before the client has even logged in. This reads each packet's
 * fixed header (MQTT 3.1.1 §2.2) as the bytes pass and ends the connection as soon as a packet
 * announces more than the cap: `firstLimit` for the first (CONNECT, before authentication),
 * `limit` for every later one.
 */
export class PacketSizeGuard extends Transform {
  /** Bytes of the current packet still to pass before the next fixed header. */
  private bodyLeft = 0;
  /** Reading a header: -1 before its type byte, else the remaining-length bytes read so far. */
  private headerBytes = -1;
  private length = 0;
  private multiplier = 1;
  private packets = 0;

  constructor(private readonly limits: { firstLimit: number; limit: number }) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.bodyLeft > 0) {
        const take = Math.min(this.bodyLeft, chunk.length - at);
        this.bodyLeft -= take;
        at += take;
        continue;
      }
      if (this.headerBytes === -1) {
        // The packet type and flags byte.
        this.headerBytes = 0;
        this.length = 0;
        this.multiplier = 1;
        at++;
        continue;
      }
      const byte = chunk[at++]!;
      this.length += (byte & 0x7f) * this.multiplier;
      this.multiplier *= 128;
      this.headerBytes++;
      if (byte & 0x80 && this.headerBytes < 4) continue;
      const cap = this.packets === 0 ? this.limits.firstLimit : this.limits.limit;
      if (byte & 0x80 || this.length > cap) return done(new Error(`MQTT packet over ${cap} bytes`));
      this.packets++;
      this.bodyLeft = this.length;
      this.headerBytes = -1;
    }
    done(null, chunk);
  }
}

/**
 * The socket as aedes should see it: what it reads passes the guard first; what it writes goes
 * straight to the socket. A packet over the cap destroys the socket.
 */
export function guardedConnection(socket: Duplex, limits: { firstLimit: number; limit: number }): Duplex {
  const guard = new PacketSizeGuard(limits);
  socket.pipe(guard);
  guard.once('error', () => socket.destroy());
  const connection = Duplex.from({ readable: guard, writable: socket });
  socket.once('close', () => connection.destroy());
  connection.once('close', () => socket.destroy());
  return connection;
}
