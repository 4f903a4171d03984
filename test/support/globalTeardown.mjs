export default async function globalTeardown() {
  await globalThis.__MNEMO_TEST_SERVICES__?.teardown();
}
