import argon2 from 'argon2';

/**
 * argon2id at OWASP's recommendation (m=19 MiB, t=2, p=1): the memory is the configuration's
 * (PASSWORD_HASH_MEMORY_KIB, default 19,456 KiB; src/config/config.ts), the rest fixed. A hash
 * records its own parameters, so one made at any cost verifies.
 */
const TIME_COST = 2;

export function hashPassword(password: string, memoryKiB: number): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id, memoryCost: memoryKiB, timeCost: TIME_COST, parallelism: 1 });
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

/** Hashes of a random password at each cost asked for, verified against when no account exists so timing tells nothing. */
const decoyHashes = new Map<number, Promise<string>>();
export function decoyPasswordHash(memoryKiB: number): Promise<string> {
  let decoy = decoyHashes.get(memoryKiB);
  if (!decoy) decoyHashes.set(memoryKiB, (decoy = hashPassword(`decoy-${Math.random()}`, memoryKiB)));
  return decoy;
}
