import type { ThreadMessageView } from './rows.js';

/**
 * Server-Sent Events framing (https://html.spec.whatwg.org/multipage/server-sent-events.html).
 * `data` is one line of JSON (JSON.stringify never emits a raw newline).
 */
export function sseMessage(message: ThreadMessageView): string {
  return `id: ${message.seq}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/** A comment line: clients ignore it; it keeps proxies and idle-connection timers from closing the stream. */
export function sseComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}

/** How long an EventSource client waits before reconnecting after the stream ends. */
export function sseRetry(ms: number): string {
  return `retry: ${Math.round(ms)}\n\n`;
}

/**
 * The seq to resume after: the `Last-Event-ID` header a reconnecting
 * EventSource sends wins over `?last_event_id=` (the URL keeps its first
 * value across reconnects). undefined when neither is given; null when the
 * given value is not a seq.
 */
export function resumeSeq(header: string | undefined, query: string | undefined): number | null | undefined {
  const text = header?.trim() || query?.trim();
  if (text === undefined || text === '') return undefined;
  if (!/^\d{1,15}$/.test(text)) return null;
  return Number(text);
}
