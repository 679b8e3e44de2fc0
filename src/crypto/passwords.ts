import argon2 from 'argon2';

/**
 * argon2id at OWASP's recommendation (m=19 MiB, t=2, p=1). Production's cost is this constant,
 * not configuration: a deployment at another cost than its stored hashes would time a login for
 * an unknown email (the decoy, at the current cost) apart from one for a known email (verified at
 * the cost its hash records), telling which accounts exist (docs/decisions.md). Only tests pass a
 * lower memory, in code (ContextOptions.passwordHashMemoryKiB). A hash records its own parameters,
 * so one made at any cost verifies.
 */
export const PASSWORD_HASH_MEMORY_KIB = 19_456;
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

/**
 * A hash of a random password at the cost new hashes are made at (the caller passes the same
 * memory as to hashPassword), verified against when no account exists so timing tells nothing.
 */
const decoyHashes = new Map<number, Promise<string>>();
export function decoyPasswordHash(memoryKiB: number): Promise<string> {
  let decoy = decoyHashes.get(memoryKiB);
  if (!decoy) decoyHashes.set(memoryKiB, (decoy = hashPassword(`decoy-${Math.random()}`, memoryKiB)));
  return decoy;
}
