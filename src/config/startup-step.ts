/**
 * A start-up step that depends on a setting (a database to reach, a key to open, a port to take):
 * when it fails, the one line the operator reads names the setting to look at.
 */
export async function startupStep<T>(setting: string, what: string, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw new Error(`${setting}: ${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}
