/** Short, readable instants: "2026-03-04 09:15" in the viewer's zone. */
export function when(iso: string | null): string {
  if (!iso) return '—';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A validity interval in world time: "since 2025-01-01 → until 2026-02-01". */
export function interval(from: string | null, to: string | null): string {
  return `${from ? when(from) : 'always'} → ${to ? when(to) : 'now'}`;
}

export function percent(x: number): string {
  return `${Math.round(x * 100)}%`;
}

export function json(value: unknown): string {
  return value === null || value === undefined ? '—' : JSON.stringify(value, null, 2);
}
