import { ingestEpisodeInputSchema } from '../core/ingest/workflowInput.js';

describe('ingestEpisode input (validated inside the workflow, kept in history forever)', () => {
  const episodeId = '7a1f3c2e-9b4d-4e8a-a1c2-3d4e5f607182';

  it('defaults localStages to true and keeps an explicit false', () => {
    expect(ingestEpisodeInputSchema.parse({ episodeId })).toEqual({ episodeId, localStages: true });
    expect(ingestEpisodeInputSchema.parse({ episodeId, localStages: false })).toEqual({ episodeId, localStages: false });
  });

  it('rejects a missing or malformed episode id and a non-boolean flag', () => {
    expect(ingestEpisodeInputSchema.safeParse({}).success).toBe(false);
    expect(ingestEpisodeInputSchema.safeParse({ episodeId: 'episode-1' }).success).toBe(false);
    expect(ingestEpisodeInputSchema.safeParse({ episodeId, localStages: 'yes' }).success).toBe(false);
  });

  it('accepts inputs recorded by older clients that carry extra fields (history is forever)', () => {
    expect(ingestEpisodeInputSchema.parse({ episodeId, legacy: 1 })).toEqual({ episodeId, localStages: true });
  });
});
