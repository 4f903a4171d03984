import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ensureWebBuilt } from '../web/build.js';
import { ensureNamespace, insertEntity, insertMergeProposal } from './support/reviewFixtures.js';
import { ROOT } from './support/paths.js';
import { remember, startTestStack, waitForStatus, type TestStack } from './support/stack.js';

/** Debian's chromium (scripts/setup-machine.sh installs it); never a browser download. */
const CHROMIUM = '/usr/bin/chromium';
const SECRET = 'kg-browser-test-secret-0123456789';
const NS = 'kg-browser';
const ARTIFACTS = path.join(ROOT, 'test/artifacts/kg');

/**
 * The `/kg` page in a real browser against the real pipeline: a person logs in,
 * finds an entity, reads its facts and history, corrects one, sees the audit
 * trail, retries a failed extraction and decides a review item.
 */
// A laptop without Debian's chromium skips these (the title says why); CI installs it and must run them.
const browserMissing = !existsSync(CHROMIUM) && process.env.CI !== 'true';
const describeWithBrowser = browserMissing ? describe.skip : describe;

describeWithBrowser(`/kg in a browser${browserMissing ? ` [needs ${CHROMIUM}: apt-get install chromium]` : ''}`, () => {
  let stack: TestStack;
  let browser: Browser;
  let page: Page;
  let failedEpisode: string;
  let reviewId: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/setup-machine.sh (apt-get install chromium)`);
    await ensureWebBuilt();
    await mkdir(ARTIFACTS, { recursive: true });
    stack = await startTestStack({ env: { WEB_APP_BOOTSTRAP_SECRET: SECRET } });
    const user = 'marta';
    await remember(stack, { namespace: NS, user_id: user, content: 'Marta Lindqvist works at Acme Robotics.', occurred_at: '2026-01-05T09:00:00Z' });
    await remember(stack, { namespace: NS, user_id: user, content: 'Marta Lindqvist works at Borealis Labs.', occurred_at: '2026-03-10T09:00:00Z' });
    await remember(stack, { namespace: NS, user_id: user, content: 'Marta Lindqvist is allergic to peanuts.', occurred_at: '2026-03-11T09:00:00Z' });
    await remember(stack, { namespace: NS, user_id: user, content: 'Jonas Berg works at Borealis Labs.', occurred_at: '2026-03-11T10:00:00Z' });

    // An extraction that failed for good: the episode and the stage runs its workflow left behind.
    const db = stack.deps.pool;
    await ensureNamespace(db, NS);
    failedEpisode = randomUUID();
    await db.query(
      `INSERT INTO episode (id, namespace, user_id, content, occurred_at, status, error, workflow_id)
       VALUES ($1, $2, 'marta', 'Marta Lindqvist lives in Lisbon.', '2026-03-12T09:00:00Z', 'failed', 'fact-extract: model timed out after 3 attempts', $3)`,
      [failedEpisode, NS, `episode:${failedEpisode}`],
    );
    await db.query(
      `INSERT INTO stage_run (namespace, episode_id, workflow_id, workflow_run_id, stage, attempt, status, input, output, started_at, finished_at, duration_ms, error)
       VALUES ($1, $2, $3, 'run-1', 'entity-extract', 1, 'succeeded', '{"chunks":1}', '{"candidates":[{"name":"Marta Lindqvist","type":"person"}]}', now() - interval '2 minutes', now() - interval '2 minutes', 12, NULL),
              ($1, $2, $3, 'run-1', 'fact-extract', 3, 'failed', '{"entities":2}', NULL, now() - interval '1 minute', now() - interval '1 minute', 30000, 'model timed out after 30000 ms')`,
      [NS, failedEpisode, `episode:${failedEpisode}`],
    );
    const survivor = await insertEntity(db, NS, 'Northwind Traders');
    const loser = await insertEntity(db, NS, 'Northwind Trading');
    reviewId = await insertMergeProposal(db, NS, survivor, loser);

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.on('pageerror', (err) => pageErrors.push(err.message));
  });

  // A script error on the page (a CSP refusal, a bug) fails the step that caused it.
  afterEach(() => {
    expect(pageErrors.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

  it('asks for the secret once, then keeps the session', async () => {
    await page.goto(`${stack.baseUrl}/kg?ns=${NS}`);
    await page.getByLabel('Secret').fill('a wrong secret, surely');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong secret' }).waitFor();
    await page.getByLabel('Secret').fill(SECRET);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByLabel('Search entities').waitFor();
    await page.reload();
    await page.getByLabel('Search entities').waitFor(); // the cookie carried the session over the reload
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'mnemo_kg')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  });

  it('finds an entity by a misspelt name and draws its neighborhood', async () => {
    await page.getByLabel('Search entities').fill('Marta Lindqvst');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('.result', { hasText: 'Marta Lindqvist' }).click();
    const graph = page.locator('#graph');
    await page.locator('#graph[data-nodes]').waitFor();
    expect(Number(await graph.getAttribute('data-nodes'))).toBeGreaterThanOrEqual(2);
    expect(new URL(page.url()).searchParams.get('depth')).toBe('1');
    await page.getByLabel('Depth').selectOption('2');
    await page.waitForURL((url) => url.searchParams.get('depth') === '2', { waitUntil: 'commit' });
  });

  it('shows each fact with its confidence, decay, freshness, validity and sensitivity, and the superseded one greyed', async () => {
    const current = page.locator('.fact[data-superseded="false"]', { hasText: 'Borealis Labs' });
    await current.waitFor();
    expect(await current.locator('.freshness').textContent()).toMatch(/^confirmed /);
    expect(await current.locator('.confidence').textContent()).toMatch(/^\d+%$/);
    expect(await current.locator('.validity').textContent()).toContain('2026-03-10');
    expect(await current.textContent()).toMatch(/slow decay|fast decay|permanent/);
    expect(await current.textContent()).toMatch(/public|internal|confidential/);

    const old = page.locator('.fact.superseded', { hasText: 'Acme Robotics' });
    await old.waitFor();
    expect(await old.locator('.replaced').textContent()).toMatch(/Replaced by “Borealis Labs” on 2026-03-10/);
    const colour = await old.evaluate((el) => el.ownerDocument.defaultView?.getComputedStyle(el).color);
    expect(colour).toBe('rgb(154, 160, 168)');

    await current.getByRole('button', { name: /Episodes \(1\)/ }).click();
    await current.locator('.episodes q', { hasText: 'Marta Lindqvist works at Borealis Labs.' }).waitFor();
    await shot('entity-panel');
  });

  it('corrects a value from the page and shows it in the audit trail', async () => {
    const allergy = page.locator('.chain[data-predicate="allergic_to"] .fact').first();
    await allergy.getByRole('button', { name: 'Correct' }).click();
    await allergy.getByLabel('Corrected value').fill('shellfish');
    await allergy.getByLabel('Reason').fill('Marta said it was shellfish');
    await allergy.getByRole('button', { name: 'Save correction' }).click();
    await page.locator('.chain[data-predicate="allergic_to"] .fact .object', { hasText: 'shellfish' }).waitFor();
    const entry = page.locator('.audit li[data-action="fact.corrected"]');
    await entry.waitFor();
    expect(await entry.textContent()).toContain('"peanuts" → "shellfish"');
    // Tall enough that the panel shows the audit trail under the facts (the README's picture).
    await page.setViewportSize({ width: 1440, height: 1500 });
    await shot('corrected');
    await page.setViewportSize({ width: 1440, height: 900 });
    if (process.env.KG_UPDATE_SCREENSHOT === '1') await copyFile(path.join(ARTIFACTS, 'corrected.png'), path.join(ROOT, 'docs/kg.png'));
  });

  it('centers on a node clicked in the graph', async () => {
    const graph = page.locator('#graph');
    const target = await graph.evaluate((el) => {
      const cy = (el as unknown as { _cyreg: { cy: { nodes(): Array<{ id(): string; data(k: string): string; renderedPosition(): { x: number; y: number } }> } } })._cyreg.cy;
      const node = cy.nodes().find((n) => n.data('label') === 'Borealis Labs');
      return node ? { id: node.id(), ...node.renderedPosition() } : null;
    });
    expect(target).not.toBeNull();
    await graph.click({ position: { x: target!.x, y: target!.y } });
    await page.waitForURL((url) => url.searchParams.get('entity') === target!.id, { waitUntil: 'commit' });
    await page.locator('.entity-panel h2', { hasText: 'Borealis Labs' }).waitFor();
    await page.locator(`#graph[data-center="${target!.id}"]`).waitFor();
  });

  it('opens a failed episode, shows its stages and retries it', async () => {
    await page.getByRole('link', { name: 'Episodes' }).click();
    await page.getByLabel('Extraction status').selectOption('failed');
    await page.locator(`.episode[data-episode-id="${failedEpisode}"] .result`).click();
    const detail = page.locator('.episode-detail');
    await detail.locator('[data-status="failed"]').waitFor();
    const failedStage = detail.locator('tr.stage-failed[data-stage="fact-extract"]');
    expect(await failedStage.textContent()).toContain('model timed out after 30000 ms');
    expect(await failedStage.textContent()).toContain('30000 ms');
    expect(await detail.locator('.workflow-link').getAttribute('href')).toBe(`http://127.0.0.1:8233/namespaces/default/workflows/episode:${failedEpisode}`);
    await failedStage.locator('summary', { hasText: 'input' }).click();
    expect(await failedStage.locator('pre').first().textContent()).toContain('"entities": 2');
    await shot('failed-episode');
    await detail.getByRole('button', { name: 'Retry' }).click();
    await detail.getByText('Retry started.').waitFor();
    expect((await waitForStatus(stack, failedEpisode, ['extracted'])).status).toBe('extracted');
    await detail.locator('[data-status="extracted"]').waitFor();
  });

  it('approves a merge proposal from the review inbox', async () => {
    await page.getByRole('link', { name: 'Reviews' }).click();
    const item = page.locator(`.review[data-review-id="${reviewId}"]`);
    await item.waitFor();
    await shot('reviews');
    await item.getByRole('button', { name: 'Approve' }).click();
    await item.getByText('Decision sent.').waitFor();
    const { rows } = await stack.deps.pool.query<{ after: { decision: string }; actor: string }>(
      `SELECT after, actor FROM audit_log WHERE action = 'review.decision_requested' AND target_id = $1`,
      [reviewId],
    );
    expect(rows).toEqual([expect.objectContaining({ after: { decision: 'approve' }, actor: expect.stringMatching(/^key:web:/) })]);
  });

  it('forgets a fact and deletes a relationship, each after a confirmation, and both show in the audit trail', async () => {
    await page.getByRole('link', { name: 'Graph' }).click();
    await page.locator('.entity-panel h2', { hasText: 'Borealis Labs' }).waitFor();
    const jonas = page.locator('.fact', { hasText: 'Jonas Berg works at Borealis Labs.' });
    await jonas.getByRole('button', { name: 'Forget' }).click();
    await jonas.getByRole('button', { name: 'No' }).click(); // the confirmation step: nothing happens yet
    await jonas.getByRole('button', { name: 'Forget' }).click();
    await jonas.getByRole('button', { name: 'Yes' }).click();
    await page.locator('.audit li[data-action="fact.forgotten"]').waitFor();
    // Still listed for the operator, marked forgotten (and restorable); gone from every ordinary read.
    await page.locator('.fact[data-forgotten="true"]', { hasText: 'Jonas Berg works at Borealis Labs.' }).getByRole('button', { name: 'Restore' }).waitFor();
    const reads = await stack.request<{ facts: Array<{ fact_text: string }> }>('GET', `/v1/facts?namespace=${NS}&subject=Jonas%20Berg`);
    expect(reads.body.facts.map((f) => f.fact_text)).not.toContain('Jonas Berg works at Borealis Labs.');

    const marta = page.locator('.fact:not(.superseded):not(.forgotten)', { hasText: 'Marta Lindqvist works at Borealis Labs.' });
    await marta.getByRole('button', { name: 'Delete relationship' }).click();
    await marta.getByRole('button', { name: 'Yes' }).click();
    await page.locator('.audit li[data-action="fact.forgotten"]').nth(1).waitFor(); // one row per fact
    const { rows } = await stack.deps.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM fact WHERE namespace = $1 AND forgotten_at IS NOT NULL AND fact_text IN ('Jonas Berg works at Borealis Labs.', 'Marta Lindqvist works at Borealis Labs.')`,
      [NS],
    );
    expect(rows[0].n).toBe(2);
  });

  it('erases a user only once the operator typed the user id', async () => {
    await page.getByLabel('Search entities').fill('Marta');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('.result', { hasText: 'Marta Lindqvist' }).click();
    await page.locator('.entity-panel h2', { hasText: 'Marta Lindqvist' }).waitFor();
    await page.getByRole('button', { name: /Erase user “marta”/ }).click();
    const confirm = page.getByLabel('Type the user id to confirm');
    await confirm.fill('mart');
    await page.getByRole('button', { name: 'Erase for good' }).click();
    await page.getByText('The id does not match.').waitFor();
    await confirm.fill('marta');
    await page.getByRole('button', { name: 'Erase for good' }).click();
    await page.getByRole('status').filter({ hasText: 'Erasure started' }).waitFor();
    // The erasure runs in its workflow: then the page finds nothing about her.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const found = await stack.request<{ entities: unknown[] }>('GET', `/v1/entities?namespace=${NS}&q=Marta%20Lindqvist`);
      if (found.body.entities.length === 0) break;
      if (Date.now() > deadline) throw new Error(`Marta is still found: ${JSON.stringify(found.body)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('.results', { hasText: 'No entity matches.' }).waitFor();
  });
});
