import { nameKey } from '../../domain/canonical.js';
import type { ContentType } from '../../sources/contentType.js';
import type { SourceDocument } from '../../sources/document.js';
import { readSource } from '../../sources/read.js';
import { chunkText } from '../chunk.js';
import {
  addUsage,
  NO_USAGE,
  type EntityCandidate,
  type EpisodeText,
  type ExtractionProvider,
  type FactCandidate,
  type ModelUsage,
  type ResolutionDecision,
  type ResolutionItem,
  type ResolvedEntityRef,
} from '../types.js';

export type SourceProviderName = 'email' | 'calendar' | 'json';
type StructuredType = Exclude<ContentType, 'text'>;

export const SOURCE_PROVIDER_NAMES: Record<StructuredType, SourceProviderName> = { email: 'email', calendar_event: 'calendar', json: 'json' };

/** Reads a stored content into its document (core/sources/read.ts by default). */
export type SourceReader = (contentType: StructuredType, content: string) => Promise<SourceDocument>;

function compatibleTypes(a: string, b: string): boolean {
  return a === b || a === 'other' || b === 'other';
}

/**
 * Same-or-new for what a structure names: the same only on an exact name or
 * alias (an email address, an event UID) with a compatible type. No closeness
 * by embedding: "Person 12" and "Person 13" in a data set are different people.
 */
export function judgeExactly(items: ResolutionItem[]): ResolutionDecision[] {
  return items.map((item) => {
    const keys = new Set([item.candidate.name, ...item.candidate.aliases].map(nameKey));
    const match = item.nearest.find(
      (e) => compatibleTypes(e.type, item.candidate.type) && [e.name, ...e.aliases].some((n) => keys.has(nameKey(n))),
    );
    return { index: item.index, match_id: match?.id ?? null };
  });
}

/**
 * The extraction provider of a structured source (email, calendar event,
 * JSON): the same three questions as the text providers, answered from the
 * document's structure, with the prose it carries (an email's body) handed to
 * the configured text provider with "I" as its sender. It reads the episode's
 * whole content (`wholeEpisode`): a raw message cannot be cut into chunks.
 */
export class SourceExtractionProvider implements ExtractionProvider {
  readonly name: SourceProviderName;
  readonly usesNetwork: boolean;
  readonly wholeEpisode = true;
  /** Calendar and JSON entities are named by their data; an email's body is prose and resolves as text does. */
  readonly exactResolution: boolean;

  constructor(
    private readonly contentType: StructuredType,
    private readonly text: ExtractionProvider,
    private readonly read: SourceReader = readSource,
  ) {
    this.name = SOURCE_PROVIDER_NAMES[contentType];
    this.usesNetwork = text.usesNetwork;
    this.exactResolution = contentType !== 'email';
  }

  /** The prose of the document, chunked as text episodes are, its sender as speaker. */
  private proseChunks(episode: EpisodeText, doc: SourceDocument): EpisodeText[] {
    if (!doc.text.trim()) return [];
    return chunkText(doc.text).map((chunk) => ({ ...episode, text: chunk, speaker: doc.speaker ?? episode.speaker }));
  }

  async extractEntities(episode: EpisodeText): Promise<{ entities: EntityCandidate[]; usage: ModelUsage }> {
    const doc = await this.read(this.contentType, episode.text);
    const entities = [...doc.entities];
    let usage = NO_USAGE;
    for (const chunk of this.proseChunks(episode, doc)) {
      const result = await this.text.extractEntities(chunk);
      usage = addUsage(usage, result.usage);
      entities.push(...result.entities);
    }
    return { entities, usage };
  }

  async judgeEntities(episode: EpisodeText, items: ResolutionItem[]): Promise<{ decisions: ResolutionDecision[]; usage: ModelUsage }> {
    const doc = await this.read(this.contentType, episode.text);
    // What the structure names is matched exactly; what the prose names is judged as the text provider judges.
    const structural = new Set(doc.entities.map((e) => `${e.type}|${nameKey(e.name)}`));
    const fromStructure = items.filter((i) => structural.has(`${i.candidate.type}|${nameKey(i.candidate.name)}`));
    const fromProse = items.filter((i) => !fromStructure.includes(i));
    const prose = this.proseChunks(episode, doc)[0];
    const judged = fromProse.length && prose ? await this.text.judgeEntities({ ...prose, text: doc.text }, fromProse) : { decisions: [], usage: NO_USAGE };
    return { decisions: [...judgeExactly(fromStructure), ...judged.decisions], usage: judged.usage };
  }

  async extractFacts(episode: EpisodeText, entities: ResolvedEntityRef[]): Promise<{ facts: FactCandidate[]; usage: ModelUsage }> {
    const doc = await this.read(this.contentType, episode.text);
    const facts: FactCandidate[] = [...doc.facts];
    let usage = NO_USAGE;
    for (const chunk of this.proseChunks(episode, doc)) {
      const result = await this.text.extractFacts(chunk, entities);
      usage = addUsage(usage, result.usage);
      facts.push(...result.facts);
    }
    return { facts, usage };
  }
}
