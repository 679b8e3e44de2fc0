import type { ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { connect, createServer } from 'node:net';
import { eventually } from './wait.js';

/** A TCP port on 127.0.0.1 that was free a moment ago (for a server a test starts itself). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** A UDP port on 127.0.0.1 that was free a moment ago (Matter speaks UDP). */
export function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}

/** Whether something accepts connections on 127.0.0.1:`port`. */
export function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/** Waits until the server `child` (named `name`) accepts connections on `port`; kills it when it does not within 5 s or exits first. */
export async function untilAccepting(child: ChildProcess, port: number, name: string): Promise<void> {
  const started = async () => {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    return accepting(port);
  };
  await eventually(started, `${name} accepting on port ${port}`, 5000, 50).catch((err: unknown) => {
    child.kill();
    throw new Error(`${name} did not start`, { cause: err });
  });
}
