import { nameKey } from '../domain/canonical.js';

/**
 * Legal-form designators: they say how a company is registered, not which
 * company it is, so "Acme", "Acme Corp" and "Acme, Inc." name one company.
 * Compared as `nameKey` tokens (lower case, dots dropped: "S.A." is "sa").
 */
export const LEGAL_FORM_SUFFIXES: ReadonlySet<string> = new Set([
  'inc', 'incorporated', 'corp', 'corporation', 'co', 'company', 'ltd', 'limited', 'llc', 'llp', 'lp', 'plc',
  'gmbh', 'ag', 'kg', 'se', 'sa', 'sas', 'sarl', 'spa', 'srl', 'bv', 'nv', 'ab', 'oy', 'as', 'pty', 'kk',
]);

/**
 * Words a group of companies tacks onto its name that people routinely leave
 * out ("Beacon" for "Beacon Capital GmbH"). Looser than legal forms, so a
 * match through them is only ever a merge *proposal* for a person to decide.
 */
export const ORGANIZATIONAL_SUFFIXES: ReadonlySet<string> = new Set(['group', 'holding', 'holdings', 'capital', 'partners']);

/** Joiners left dangling once a suffix is gone ("Smith & Co" → "smith &"). */
const DANGLING = new Set(['&', 'and', '+']);

/**
 * An organization's name without its legal form and organizational suffixes,
 * as a comparison key: "Acme Corp." → "acme", "Beacon Capital GmbH" → "beacon",
 * "The Acme Company" → "acme". Suffixes are stripped from the end only, and
 * never the last word ("Capital Group" → "capital"), so a name always keeps
 * one word of its own. Pure: the dream's duplicate pass and write-time
 * resolution share it.
 */
export function organizationNameKey(name: string): string {
  const words = nameKey(name).split(' ').filter(Boolean);
  let end = words.length;
  const strippable = (w: string) => LEGAL_FORM_SUFFIXES.has(w) || ORGANIZATIONAL_SUFFIXES.has(w) || DANGLING.has(w);
  while (end > 1 && strippable(words[end - 1])) end--;
  return words.slice(0, end).join(' ');
}

/** True when two organization names differ only by legal form or organizational suffixes (and neither is only that). */
export function sameOrganizationName(a: string, b: string): boolean {
  const key = organizationNameKey(a);
  return key !== '' && key === organizationNameKey(b);
}
