import type { DreamPass, DreamReport, PassCounts } from './contracts.js';

/** A run's report before its first batch. */
export function emptyReport(): DreamReport {
  return {
    passes: {
      decay: { facts_updated: 0, stale_marked: 0, seconds: 0 },
      session_expiry: { sessions_checked: 0, sessions_expired: 0, seconds: 0 },
      duplicates: { entities_checked: 0, pairs_proposed: 0, seconds: 0 },
      reembed: { episodes_reembedded: 0, facts_reembedded: 0, seconds: 0 },
    },
    totals: { batches: 0, seconds: 0 },
  };
}

const roundSeconds = (s: number) => Math.round(s * 1000) / 1000;

/** The report with one batch of `pass` added: its counts summed in, its time added to the pass and the total. */
export function addBatch<P extends DreamPass>(report: DreamReport, pass: P, counts: PassCounts<P>, seconds: number): DreamReport {
  const before = report.passes[pass] as Record<string, number>;
  const summed: Record<string, number> = { ...before };
  for (const [key, value] of Object.entries(counts as Record<string, number>)) summed[key] = (before[key] ?? 0) + value;
  summed.seconds = roundSeconds(before.seconds + seconds);
  return {
    passes: { ...report.passes, [pass]: summed },
    totals: { batches: report.totals.batches + 1, seconds: roundSeconds(report.totals.seconds + seconds) },
  };
}

/** The pass after `pass`, or null after the last. */
export function nextPass(passes: readonly DreamPass[], pass: DreamPass): DreamPass | null {
  const i = passes.indexOf(pass);
  return i >= 0 && i + 1 < passes.length ? passes[i + 1] : null;
}
