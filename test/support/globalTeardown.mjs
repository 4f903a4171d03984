export default async function globalTeardown() {
  await globalThis.__MNEMO_TEMPORAL__?.teardown();
}
