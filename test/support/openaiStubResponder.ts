/**
 * Reads Mnemo's own extraction prompts back out of a stub chat request, so a
 * test or benchmark can answer them with any ExtractionProvider (typically the
 * heuristic one): `stub.setResponder(providerResponder(new HeuristicProvider()))`
 * makes the openai provider produce the heuristic provider's results over real
 * HTTP. No jest dependency.
 */
import { z } from 'zod';
import { PROMPT_LABELS } from '../../core/extraction/openai/prompts.js';
import {
  entityCandidateSchema,
  type EpisodeText,
  type ExtractionProvider,
  type ResolutionItem,
  type ResolvedEntityRef,
} from '../../core/extraction/types.js';
import type { StubChatRequest, StubResponder } from './openaiStub.js';

export type MnemoPrompt =
  | { stage: 'entity-extract'; episode: EpisodeText }
  | { stage: 'entity-resolve'; episode: EpisodeText; items: ResolutionItem[] }
  | { stage: 'fact-extract'; episode: EpisodeText; entities: ResolvedEntityRef[] };

const storedSchema = z.object({ id: z.string(), name: z.string(), type: z.string(), aliases: z.array(z.string()), similarity: z.number() });
const candidatesSchema = z.array(z.object({ index: z.number().int(), candidate: entityCandidateSchema, stored: z.array(storedSchema) }));
const entitiesSchema = z.array(z.object({ name: z.string(), type: z.string(), aliases: z.array(z.string()) }));

function lineValue(text: string, label: string): string {
  const start = text.indexOf(label);
  if (start < 0) throw new Error(`prompt has no "${label}" line`);
  const end = text.indexOf('\n', start);
  return text.slice(start + label.length, end < 0 ? undefined : end);
}

/** The JSON block that follows `label`, up to the episode section. */
function jsonSection(text: string, label: string): unknown {
  const start = text.indexOf(label) + label.length;
  const end = text.indexOf(`\n\n${PROMPT_LABELS.speaker}`, start);
  return JSON.parse(text.slice(start, end));
}

function parseEpisode(text: string): EpisodeText {
  const open = `${PROMPT_LABELS.text}\n${PROMPT_LABELS.fence}\n`;
  const start = text.indexOf(open);
  const end = text.lastIndexOf(`\n${PROMPT_LABELS.fence}`);
  if (start < 0 || end < start) throw new Error('prompt has no episode text');
  return {
    speaker: lineValue(text, PROMPT_LABELS.speaker),
    occurredAt: lineValue(text, PROMPT_LABELS.time),
    text: text.slice(start + open.length, end),
  };
}

/** Which stage a request is for, and its inputs (from the first user message; repair turns are ignored). */
export function parseMnemoPrompt(request: StubChatRequest): MnemoPrompt {
  const user = request.messages.find((m) => m.role === 'user');
  if (!user || typeof user.content !== 'string') throw new Error('chat request has no user message');
  const text = user.content;
  const episode = parseEpisode(text);
  if (text.startsWith(PROMPT_LABELS.candidates)) {
    const rows = candidatesSchema.parse(jsonSection(text, PROMPT_LABELS.candidates));
    return { stage: 'entity-resolve', episode, items: rows.map((r) => ({ index: r.index, candidate: r.candidate, nearest: r.stored })) };
  }
  if (text.startsWith(PROMPT_LABELS.entities)) {
    return { stage: 'fact-extract', episode, entities: entitiesSchema.parse(jsonSection(text, PROMPT_LABELS.entities)) };
  }
  return { stage: 'entity-extract', episode };
}

/** Answers every Mnemo prompt with what `provider` says, as the JSON the openai provider expects. */
export function providerResponder(provider: ExtractionProvider): StubResponder {
  return async (request) => {
    const prompt = parseMnemoPrompt(request);
    switch (prompt.stage) {
      case 'entity-extract':
        return JSON.stringify({ entities: (await provider.extractEntities(prompt.episode)).entities });
      case 'entity-resolve':
        return JSON.stringify({ decisions: (await provider.judgeEntities(prompt.episode, prompt.items)).decisions });
      case 'fact-extract':
        return JSON.stringify({ facts: (await provider.extractFacts(prompt.episode, prompt.entities)).facts });
    }
  };
}
