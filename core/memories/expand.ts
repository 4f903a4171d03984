import type { Queryable } from '../db/pool.js';
import { FACT_VIEW_COLUMNS, factEpisodeIdsSql, toFactView, type FactRow, type FactView } from '../retrieval/facts.js';
import { SqlParams } from '../retrieval/sql.js';

/** How an episode touched a fact (fact_episode.relation). */
export type FactRelation = 'created' | 'confirmed' | 'refined' | 'invalidated';

export interface EpisodeFact extends FactView {
  /** What this episode did to the fact, strongest first when it did several. */
  relations: FactRelation[];
}

export interface EpisodeEntity {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  /** How the episode named it. */
  surface: string;
  merged_into: string | null;
  forgotten_at: string | null;
}

export interface EpisodeProducts {
  facts: EpisodeFact[];
  entities: EpisodeEntity[];
}

const RELATION_ORDER: FactRelation[] = ['created', 'refined', 'confirmed', 'invalidated'];

/**
 * The facts and entities an episode's extraction produced or touched, as full
 * objects (`GET /v1/memories/:id?expand=facts`). Scoped by the episode's
 * namespace; forgotten facts and entities only for operators.
 */
export async function episodeProducts(db: Queryable, episode: { id: string; namespace: string }, now: Date, includeForgotten: boolean): Promise<EpisodeProducts> {
  const p = new SqlParams();
  const ns = p.add(episode.namespace);
  const id = `${p.add(episode.id)}::uuid`;
  const live = (a: string) => (includeForgotten ? 'true' : `${a}.forgotten_at IS NULL`);
  const facts = await db.query<FactRow & { relations: FactRelation[] }>(
    `SELECT ${FACT_VIEW_COLUMNS}, ${factEpisodeIdsSql(ns, live('e'))} AS episode_ids,
            ARRAY(SELECT fe.relation FROM fact_episode fe WHERE fe.fact_id = f.id AND fe.episode_id = ${id}) AS relations
       FROM fact f JOIN entity s ON s.id = f.subject_id LEFT JOIN entity o ON o.id = f.object_id
      WHERE f.namespace = ${ns} AND ${live('f')} AND f.id IN (SELECT fact_id FROM fact_episode WHERE episode_id = ${id})
      ORDER BY f.recorded_at, f.id`,
    p.values,
  );
  const q = new SqlParams();
  const entities = await db.query<{ id: string; name: string; type: string; aliases: string[]; surface: string; merged_into: string | null; forgotten_at: Date | null }>(
    `SELECT n.id, n.name, n.type, n.aliases, ee.surface, n.merged_into, n.forgotten_at
       FROM entity_episode ee JOIN entity n ON n.id = ee.entity_id
      WHERE ee.episode_id = ${q.add(episode.id)}::uuid AND n.namespace = ${q.add(episode.namespace)} AND ${live('n')}
      ORDER BY n.name, n.id`,
    q.values,
  );
  return {
    facts: facts.rows.map(({ relations, ...row }) => ({
      ...toFactView(row, now),
      relations: [...new Set(relations)].sort((a, b) => RELATION_ORDER.indexOf(a) - RELATION_ORDER.indexOf(b)),
    })),
    entities: entities.rows.map((r) => ({ ...r, forgotten_at: r.forgotten_at ? r.forgotten_at.toISOString() : null })),
  };
}
