/**
 * The session workflow's state and decisions, as a plain class so they are
 * unit-tested without Temporal. Workflow-safe: the caller passes the time
 * (workflow time), nothing here reads a clock or does I/O.
 */
import {
  KEEP_VERBATIM_TURNS,
  SIGNALS_BEFORE_CONTINUE_AS_NEW,
  SUMMARIZE_ABOVE_TURNS,
  type OpenedSession,
  type SessionRunState,
  type SessionStateView,
  type TurnSignal,
} from './contracts.js';

export class SessionState {
  private sessionId: string | null;
  private turnCount: number;
  private summarizedThrough: number;
  private ttlMs: number;
  private lastActivityMs: number;
  private archived = false;
  /** Bumped by every change the main loop must react to (a turn, a re-arm). */
  private version = 0;
  private signalsThisRun = 0;

  constructor(init: SessionRunState) {
    this.sessionId = init.sessionId;
    this.turnCount = init.turnCount;
    this.summarizedThrough = init.summarizedThrough;
    this.ttlMs = init.ttlMs;
    this.lastActivityMs = init.lastActivityMs;
  }

  static fresh(defaultTtlMs: number, nowMs: number): SessionState {
    return new SessionState({ sessionId: null, turnCount: 0, summarizedThrough: 0, ttlMs: defaultTtlMs, lastActivityMs: nowMs });
  }

  get currentSessionId(): string | null {
    return this.sessionId;
  }

  get changeVersion(): number {
    return this.version;
  }

  get knownTurnCount(): number {
    return this.turnCount;
  }

  /** The session row the first activity opened (or found); turns signalled meanwhile are kept. */
  attach(opened: OpenedSession): void {
    if (this.sessionId !== null && this.sessionId !== opened.sessionId) return; // a newer session already arrived by signal
    this.sessionId = opened.sessionId;
    this.turnCount = Math.max(this.turnCount, opened.turnCount);
    this.summarizedThrough = Math.max(this.summarizedThrough, opened.summarizedThrough);
    if (this.signalsThisRun === 0) this.ttlMs = opened.ttlMs;
    this.version++;
  }

  /**
   * A committed turn. A turn of another session id means the row this run
   * watched was archived and a fresh one opened: follow the new one.
   */
  onTurn(turn: TurnSignal, nowMs: number): void {
    this.signalsThisRun++;
    if (turn.sessionId !== this.sessionId) {
      this.sessionId = turn.sessionId;
      this.turnCount = 0;
      this.summarizedThrough = 0;
      this.archived = false;
    }
    this.turnCount = Math.max(this.turnCount, turn.turnIndex + 1);
    this.ttlMs = turn.ttlMs;
    this.lastActivityMs = Math.max(this.lastActivityMs, nowMs);
    this.version++;
  }

  /** The fold to run now, if any: more than 20 unsummarized turns → summarize all but the last 10. */
  summaryDue(): { sessionId: string; throughTurn: number } | null {
    if (this.sessionId === null || this.archived) return null;
    if (this.turnCount - this.summarizedThrough <= SUMMARIZE_ABOVE_TURNS) return null;
    return { sessionId: this.sessionId, throughTurn: this.turnCount - KEEP_VERBATIM_TURNS };
  }

  summarized(sessionId: string, summarizedThrough: number): void {
    if (sessionId !== this.sessionId) return;
    this.summarizedThrough = Math.max(this.summarizedThrough, summarizedThrough);
  }

  expiresAtMs(): number {
    return this.lastActivityMs + this.ttlMs;
  }

  msUntilExpiry(nowMs: number): number {
    return Math.max(0, this.expiresAtMs() - nowMs);
  }

  /** Turns committed while their signals were lost (Temporal was down when the API took them): the row's count wins. */
  catchUp(turnCount: number): void {
    this.turnCount = Math.max(this.turnCount, turnCount);
  }

  /** The timer fired but the session stays (persistent task, or a turn on its way): wait a full TTL again. */
  rearm(nowMs: number): void {
    this.lastActivityMs = Math.max(this.lastActivityMs, nowMs);
    this.version++;
  }

  /** The archive activity archived `sessionId`; the run is done unless a newer session arrived meanwhile. */
  markArchived(sessionId: string): void {
    if (sessionId === this.sessionId) this.archived = true;
  }

  isArchived(): boolean {
    return this.archived;
  }

  shouldContinueAsNew(): boolean {
    return this.signalsThisRun >= SIGNALS_BEFORE_CONTINUE_AS_NEW && !this.archived;
  }

  carry(): SessionRunState {
    return {
      sessionId: this.sessionId,
      turnCount: this.turnCount,
      summarizedThrough: this.summarizedThrough,
      ttlMs: this.ttlMs,
      lastActivityMs: this.lastActivityMs,
    };
  }

  view(): SessionStateView {
    return {
      ...this.carry(),
      status: this.archived ? 'archived' : this.sessionId === null ? 'opening' : 'active',
      expiresAtMs: this.expiresAtMs(),
      signalsThisRun: this.signalsThisRun,
    };
  }
}
