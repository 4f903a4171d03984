/** A start-up failure the user can fix (printed as its message alone, no stack). */
export class StartupError extends Error {
  override name = 'StartupError';
}
