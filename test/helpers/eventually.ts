/** Polls `check` until it answers something other than undefined, failing after `withinMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, what = 'condition', withinMs = 5000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
