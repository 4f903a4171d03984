import { proxyLocalActivities } from '@temporalio/workflow';

/** What the floor workflow's local activity receives and returns: a counter and filler of a chosen size. */
export interface FloorPayload {
  step: number;
  filler: string;
}

const { floorStep } = proxyLocalActivities<{ floorStep(input: FloorPayload): Promise<FloorPayload> }>({ startToCloseTimeout: '1 minute' });

/**
 * Nothing but the shape of an extraction: `activities` local activities in a
 * row, each handing the next a payload of `payloadBytes`. What it costs is
 * what Temporal costs per episode, before any of Mnemo's own work.
 */
export async function floorWorkflow(activities: number, payloadBytes: number): Promise<number> {
  let payload: FloorPayload = { step: 0, filler: 'x'.repeat(payloadBytes) };
  for (let i = 0; i < activities; i++) payload = await floorStep(payload);
  return payload.step;
}
