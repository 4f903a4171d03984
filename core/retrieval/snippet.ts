const ELLIPSIS = '…';

/** A short excerpt of `text` centred on the first query term it contains (the whole text when short). */
export function snippet(text: string, terms: string[], max = 240): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  const lower = clean.toLowerCase();
  let at = -1;
  for (const term of terms) {
    const i = lower.indexOf(term);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  let start = at < 0 ? 0 : Math.max(0, at - Math.floor(max / 4));
  if (start > 0) {
    const space = clean.indexOf(' ', start);
    start = space >= 0 && space < start + 20 ? space + 1 : start;
  }
  let end = Math.min(clean.length, start + max);
  if (end < clean.length) {
    const space = clean.lastIndexOf(' ', end);
    end = space > start + max / 2 ? space : end;
  }
  return `${start > 0 ? ELLIPSIS : ''}${clean.slice(start, end)}${end < clean.length ? ELLIPSIS : ''}`;
}
