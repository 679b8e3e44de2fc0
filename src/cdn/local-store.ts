import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';

/** Where the embedded storage keeps uploaded objects: files (one instance) or database rows (several). */
export interface ObjectStore {
  put(key: string, bytes: Buffer): Promise<void>;
  get(key: string): Promise<Buffer | null>;
  removeDirectory(prefix: string): Promise<void>;
}

/** Objects as files under one directory (DATA_DIR/cdn). Keys are checked by the caller; paths are confined here too. */
export class LocalObjectStore implements ObjectStore {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  private path(key: string): string {
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep)) throw new Error('object key escapes the store');
    return path;
  }

  /** Writes atomically (temp file, then rename), so a reader never sees half an image. */
  async put(key: string, bytes: Buffer): Promise<void> {
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true });
    const temp = join(dirname(path), `.upload-${randomBytes(8).toString('hex')}`);
    await writeFile(temp, bytes, { mode: 0o644 });
    await rename(temp, path);
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async removeDirectory(prefix: string): Promise<void> {
    await rm(this.path(prefix), { recursive: true, force: true });
  }
}
