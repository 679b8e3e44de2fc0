// Summarises a Linux `perf record -g` of the service (UNLOCK_BENCH_PERF in bench/unlock.ts): the
// CPU it really used, by area. Unlike a V8 profile, which samples the main thread by the clock
// (time blocked in fsync counts there), perf samples CPU time on every thread: the Ed25519 math in
// OpenSSL, SQLite's C code, the kernel's side of each system call, garbage collection, and the
// JavaScript by the innermost function's file (the service runs with --perf-basic-prof).
// Not a benchmark. Run: node --import tsx bench/perf-summary.ts FILE [PER_UNLOCK_MICROS]
// With PER_UNLOCK_MICROS (the service CPU per unlock the bench printed) each share is also
// printed in µs per unlock.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

/** Starts `perf record -g` of process `pid` into `file`; stop() ends it and waits for the file. */
export async function recordPerf(pid: number, file: string): Promise<{ stop(): Promise<void> }> {
  const perf = spawn('perf', ['record', '-F', '999', '-g', '-p', String(pid), '-o', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  perf.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = once(perf, 'exit');
  // perf attaches within a few milliseconds; an early exit means it cannot (not installed, not allowed).
  const early = await Promise.race([exited.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 300))]);
  if (early) throw new Error(`perf record failed: ${errors.trim() || 'exited at once'}`);
  return {
    async stop() {
      perf.kill('SIGINT');
      await exited;
    },
  };
}

/** The area of one sample, from its stack (innermost frame first). */
export function areaOfStack(frames: string[]): string {
  const stack = frames.join('\n');
  // Ed25519 hashes with SHA-512; the assembly keeps no frame pointer, so its samples lose the caller.
  if (stack.includes('ossl_ed25519') || frames[0]?.includes('sha512_block_data_order')) return 'Ed25519 verify (OpenSSL)';
  if (frames[0]?.includes('[kernel.kallsyms]')) return kernelArea(frames, stack);
  if (/walCheckpoint|sqlite3WalCheckpoint/.test(stack)) return 'SQLite checkpoint';
  if (/sqlite3PagerCommitPhaseOne|pagerWalFrames/.test(stack)) return 'SQLite commit (WAL frames)';
  if (/sqlite3|Statement::|Database::JS/.test(stack)) return 'SQLite statements';
  if (/Scavenge|MarkCompact|Heap::CollectGarbage|MinorMarkSweep|ConcurrentMarking|Sweeper/.test(stack)) return 'garbage collection';
  for (const frame of frames) {
    const js = /JS:\S*\s+(\S+)/.exec(frame);
    if (js) return javascriptArea(js[1]!);
  }
  return 'other native (malloc, V8 runtime, HTTP parser, libuv)';
}

function kernelArea(frames: string[], stack: string): string {
  if (/__libc_pwrite|__x64_sys_pwrite64/.test(stack)) return 'kernel: SQLite file writes (pwrite)';
  if (/fdatasync|fsync/.test(stack)) return 'kernel: fsync (checkpoints)';
  if (/do_writev|__x64_sys_write\b|sock_write_iter/.test(stack)) return 'kernel: socket writes';
  if (/ksys_read|__x64_sys_read\b|sock_read_iter|tcp_recvmsg/.test(stack)) return 'kernel: socket reads';
  if (/epoll/.test(stack)) return 'kernel: event loop (epoll)';
  if (/fcntl|pread64/.test(stack)) return 'kernel: SQLite locks and reads (fcntl, pread)';
  const syscall = frames.map((frame) => /(__x64_sys_\w+)/.exec(frame)?.[1]).find(Boolean);
  return `kernel: ${syscall ?? 'other'}`;
}

function javascriptArea(url: string): string {
  const ours = /\/(src\/[^/]+)\//.exec(url);
  if (ours) return `JS ${ours[1]}`;
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency) return `JS ${dependency[1]}`;
  if (url.startsWith('node:')) return 'JS node internals';
  return 'JS other';
}

/** Reads `perf script` output: samples are blocks of frame lines (indented) after a header line. */
async function areaShares(file: string): Promise<{ samples: number; areas: Map<string, number> }> {
  const perf = spawn('perf', ['script', '-i', file], { stdio: ['ignore', 'pipe', 'ignore'] });
  const areas = new Map<string, number>();
  let samples = 0;
  let frames: string[] = [];
  const flush = () => {
    if (frames.length > 0) {
      const area = areaOfStack(frames);
      areas.set(area, (areas.get(area) ?? 0) + 1);
      samples++;
    }
    frames = [];
  };
  for await (const line of createInterface({ input: perf.stdout })) {
    if (line.trim() === '') flush();
    else if (/^\s/.test(line)) frames.push(line.trim());
    else frames = [];
  }
  flush();
  return { samples, areas };
}

/** Prints the shares of `file` by area, each also in µs when `perUnlockMicros` (the service CPU per unlock) is given. */
export async function printPerfSummary(file: string, perUnlockMicros: number | null, indent = ''): Promise<void> {
  const { samples, areas } = await areaShares(file);
  console.log(`${indent}${samples} samples`);
  for (const [area, count] of [...areas].sort((a, b) => b[1] - a[1])) {
    const share = count / samples;
    if (share < 0.002) continue;
    const micros = perUnlockMicros === null ? '' : `  ${(share * perUnlockMicros).toFixed(0).padStart(4)} µs`;
    console.log(`${indent}${(100 * share).toFixed(1).padStart(5)} %${micros}  ${area}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, perUnlock] = process.argv.slice(2);
  if (!file) throw new Error('usage: bench/perf-summary.ts FILE [PER_UNLOCK_MICROS]');
  await printPerfSummary(file, perUnlock ? Number(perUnlock) : null);
}
