/** Polls `probe` until `done` holds: workflows and extraction reach their states asynchronously. */
export async function eventually<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen (last: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
