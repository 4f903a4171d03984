/**
 * The input of `ingestEpisode`, validated inside the workflow. Its own module,
 * on zod/mini: workflow code is re-evaluated for every workflow run, and the
 * full zod API (imported by contracts.ts for activity shapes) cost ~15 ms of
 * CPU per episode there. Lives in history forever: extend only with optional fields.
 */
import * as z from 'zod/mini';

export const ingestEpisodeInputSchema = z.object({
  episodeId: z.uuid(),
  /** Run stages as local activities (no network model): fewer round trips through Temporal. */
  localStages: z._default(z.boolean(), true),
});
export type IngestEpisodeInput = z.input<typeof ingestEpisodeInputSchema>;
