/** Address of the Temporal dev server that globalSetup started for this jest process. */
export function testTemporalAddress(): string {
  const address = process.env.MNEMO_TEST_TEMPORAL_ADDRESS;
  if (!address) throw new Error('MNEMO_TEST_TEMPORAL_ADDRESS is unset: run tests through jest (globalSetup starts Temporal)');
  return address;
}
