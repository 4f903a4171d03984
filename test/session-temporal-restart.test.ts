import { sessionWorkflowId, stateQuery } from '../core/sessions/contracts.js';
import type { SessionView } from '../core/sessions/read.js';
import { RestartableTemporal } from './support/devServer.js';
import { eventually } from './support/eventually.js';
import { startTestStack, type TestStack } from './support/stack.js';

const NS = 'sessions-restart';
const TASK = 'task-temporal-restart';
const TTL_SECONDS = 5;

/**
 * Temporal stopped mid-session: the API keeps acknowledging turns (their rows
 * are committed first), the signals of those turns are lost, and once Temporal
 * is back the same workflow adopts the turns from the row, so the session still
 * expires and its final summary covers every turn.
 */
describe('a session across a Temporal restart', () => {
  let temporal: RestartableTemporal;
  let stack: TestStack;
  beforeAll(async () => {
    temporal = await RestartableTemporal.create();
    stack = await startTestStack({ temporalAddress: temporal.address, env: { EMBEDDING_PROVIDER: 'hash' } });
  });
  afterAll(async () => {
    await stack?.stop();
    await temporal?.stop();
  });

  const post = (content: string) =>
    stack.request<{ turn_index: number }>('POST', `/v1/sessions/${TASK}/turns`, { role: 'user', content, namespace: NS, ttl_seconds: TTL_SECONDS });
  const view = () => stack.request<SessionView>('GET', `/v1/sessions/${TASK}?namespace=${NS}`);

  it('loses no turn, and the workflow catches up with the turns it was never signalled', async () => {
    expect((await post('We picked Lisbon for the offsite.')).status).toBe(202);
    const handle = stack.deps.temporal.client.workflow.getHandle(sessionWorkflowId(NS, TASK));
    await eventually(() => handle.query(stateQuery), (s) => s.turnCount === 1, 'the first turn reached the workflow');

    await temporal.stop();
    const whileDown = [await post('Maria Costa books the venue.'), await post('Budget is 4,000 euros.')];
    // Acknowledged at once although Temporal is down: the rows are committed first.
    expect(whileDown.map((r) => [r.status, r.body.turn_index])).toEqual([
      [202, 1],
      [202, 2],
    ]);
    await temporal.start();

    const { rows: turns } = await stack.deps.pool.query<{ content: string }>(
      `SELECT t.content FROM session_turn t JOIN work_session w ON w.id = t.session_id WHERE w.namespace = $1 AND w.task_id = $2 ORDER BY t.turn_index`,
      [NS, TASK],
    );
    expect(turns.map((t) => t.content)).toEqual(['We picked Lisbon for the offsite.', 'Maria Costa books the venue.', 'Budget is 4,000 euros.']);

    // The workflow only saw turn 0; at expiry it finds three in the row, adopts them, waits one more TTL and archives.
    const archived = await eventually(view, (r) => r.body.status === 'archived', 'the session archived', 45_000, 250);
    expect(archived.body.turn_count).toBe(3);
    const { rows } = await stack.deps.pool.query<{ through_turn: number; final: boolean }>(
      `SELECT s.through_turn, s.final FROM session_summary s JOIN work_session w ON w.id = s.session_id WHERE w.namespace = $1 AND w.task_id = $2`,
      [NS, TASK],
    );
    expect(rows).toEqual([{ through_turn: 3, final: true }]);
    // The archive is committed by the run's last activity; the run completes right after.
    await eventually(() => handle.describe(), (d) => d.status.name === 'COMPLETED', 'the session workflow completed');
  }, 90_000);
});
