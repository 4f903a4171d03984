import type { EntityType } from '../../domain/types.js';
import { canonicalName, nameKey } from '../../domain/canonical.js';
import type { EntityCandidate } from '../types.js';

/**
 * The entities of one episode while it is being analyzed: deduplicated by
 * name key, typed by evidence (named-entity tags first, then the predicates
 * they take part in), and emitted only when sure or when a fact uses them.
 */

interface EntityRecord {
  key: string;
  name: string;
  type: EntityType | null;
  /** Type from a tag or the name's shape; votes never override it. */
  fixedType: boolean;
  votes: EntityType[];
  aliases: string[];
  /** Emit even when no fact uses it (a tagged name, the speaker). */
  sure: boolean;
  used: boolean;
  order: number;
}

export interface AddOptions {
  type: EntityType | null;
  fixedType: boolean;
  sure: boolean;
  surface?: string;
}

export class EntityTable {
  private readonly records = new Map<string, EntityRecord>();
  private readonly redirect = new Map<string, string>();

  /** Register a name; returns its key. */
  add(name: string, opts: AddOptions): string {
    const canonical = canonicalName(name);
    const key = nameKey(canonical);
    let rec = this.records.get(key);
    if (!rec) {
      rec = { key, name: canonical, type: opts.type, fixedType: opts.fixedType && opts.type !== null, votes: [], aliases: [], sure: opts.sure, used: false, order: this.records.size };
      this.records.set(key, rec);
    } else {
      rec.sure ||= opts.sure;
      if (opts.type && (!rec.type || (opts.fixedType && !rec.fixedType))) {
        rec.type = opts.type;
        rec.fixedType = opts.fixedType;
      }
    }
    for (const alias of [name, opts.surface]) {
      const a = alias?.replace(/\s+/g, ' ').trim();
      if (a && a !== rec.name && !rec.aliases.includes(a)) rec.aliases.push(a);
    }
    return key;
  }

  resolve(key: string): string {
    let k = key;
    for (let guard = 0; this.redirect.has(k) && guard < 10; guard++) k = this.redirect.get(k) as string;
    return k;
  }

  get(key: string): EntityRecord | undefined {
    return this.records.get(this.resolve(key));
  }

  typeOf(key: string): EntityType | null {
    const rec = this.get(key);
    if (!rec) return null;
    return rec.type ?? rec.votes[0] ?? null;
  }

  vote(key: string, type: EntityType | undefined): void {
    const rec = this.get(key);
    if (rec && type && !rec.fixedType) rec.votes.push(type);
  }

  markUsed(key: string): void {
    const rec = this.get(key);
    if (rec) rec.used = true;
  }

  nameOf(key: string): string {
    return this.get(key)?.name ?? key;
  }

  finalType(rec: EntityRecord): EntityType {
    if (rec.fixedType && rec.type) return rec.type;
    if (rec.votes.length) {
      const counts = new Map<EntityType, number>();
      for (const v of rec.votes) counts.set(v, (counts.get(v) ?? 0) + 1);
      let best = rec.votes[0];
      for (const v of rec.votes) if ((counts.get(v) ?? 0) > (counts.get(best) ?? 0)) best = v;
      return best;
    }
    return rec.type ?? 'other';
  }

  /**
   * Alias-aware dedupe: "Alice" beside "Alice Smith", or "Acme" beside "Acme
   * Corp", of a compatible type, becomes an alias of the longer name.
   */
  mergeShortForms(): void {
    const recs = [...this.records.values()].filter((r) => !this.redirect.has(r.key));
    for (const short of recs) {
      const words = short.name.split(' ');
      if (words.length !== 1) continue;
      const shortType = this.finalType(short);
      const long = recs.find((r) => {
        if (r === short || this.redirect.has(r.key)) return false;
        const rw = r.name.split(' ');
        if (rw.length < 2) return false;
        const t = this.finalType(r);
        const compatible = t === shortType || shortType === 'other' || t === 'other';
        const firstMatch = rw[0].toLowerCase() === words[0].toLowerCase();
        const lastMatch = t === 'person' && rw[rw.length - 1].toLowerCase() === words[0].toLowerCase();
        return compatible && (firstMatch || lastMatch) && (t === 'person' || t === 'organization' || t === 'other');
      });
      if (!long) continue;
      this.redirect.set(short.key, long.key);
      long.used ||= short.used;
      long.sure ||= short.sure;
      long.votes.push(...short.votes);
      for (const a of [short.name, ...short.aliases]) if (a !== long.name && !long.aliases.includes(a)) long.aliases.push(a);
      this.records.delete(short.key);
    }
  }

  candidates(): EntityCandidate[] {
    return [...this.records.values()]
      .filter((r) => r.sure || r.used)
      .sort((a, b) => a.order - b.order)
      .map((r) => ({
        name: r.name.slice(0, 200),
        type: this.finalType(r),
        aliases: r.aliases.filter((a) => nameKey(a) !== '' && a !== r.name).map((a) => a.slice(0, 200)),
      }));
  }
}
