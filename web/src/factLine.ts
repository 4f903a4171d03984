import type { Api } from './api.js';
import { clear, errorBox, h } from './dom.js';
import { interval, percent, when } from './format.js';
import { objectText, type FactLine } from './history.js';
import type { Episode } from './types.js';

/** What a fact row may ask the panel to do after a change. */
export interface FactActions {
  api: Api;
  /** Reload the panel (facts and audit trail) after a change. */
  changed: () => void;
}

/** The episodes a fact came from, loaded when asked for. */
async function showEpisodes(api: Api, ids: string[], into: HTMLElement): Promise<void> {
  clear(into, h('p', { class: 'muted' }, 'Loading episodes…'));
  try {
    const episodes = await Promise.all(ids.map((id) => api.get<Episode>(`/memories/${id}`)));
    clear(
      into,
      h(
        'ul',
        { class: 'episodes' },
        ...episodes.map((e) => h('li', {}, h('time', { datetime: e.occurred_at }, when(e.occurred_at)), ' ', h('q', {}, e.content), e.user_id ? h('span', { class: 'muted' }, ` — ${e.user_id}`) : null)),
      ),
    );
  } catch (err) {
    clear(into, errorBox(err));
  }
}

function correctionForm(line: FactLine, actions: FactActions, done: () => void): HTMLFormElement {
  const literal = line.fact.object === null;
  const value = h('input', { name: 'value', value: line.fact.value ?? '', 'aria-label': 'Corrected value', required: true });
  const text = h('input', { name: 'fact_text', value: line.fact.fact_text, 'aria-label': 'Corrected sentence', required: true });
  const reason = h('input', { name: 'reason', placeholder: 'Why (kept in the audit trail)', 'aria-label': 'Reason' });
  const status = h('span', { class: 'status' });
  const form = h(
    'form',
    { class: 'correction' },
    literal ? h('label', {}, 'Value ', value) : null,
    h('label', {}, 'Sentence ', text),
    h('label', {}, 'Reason ', reason),
    h('button', { type: 'submit' }, 'Save correction'),
    h('button', { type: 'button', onclick: done }, 'Cancel'),
    status,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body: Record<string, string> = {};
    if (literal && value.value.trim() !== (line.fact.value ?? '')) body.value = value.value.trim();
    if (text.value.trim() !== line.fact.fact_text) body.fact_text = text.value.trim();
    if (!Object.keys(body).length) return clear(status, 'Nothing changed.');
    if (reason.value.trim()) body.reason = reason.value.trim();
    try {
      await actions.api.patch(`/facts/${line.fact.id}`, body);
      actions.changed();
    } catch (err) {
      clear(status, errorBox(err));
    }
  });
  return form;
}

/** A button that asks once more before it acts. */
function confirmingButton(label: string, question: string, act: () => Promise<unknown>, status: HTMLElement): HTMLElement {
  const button = h('button', { type: 'button', class: 'danger' }, label);
  button.addEventListener('click', () => {
    clear(
      status,
      h('span', { class: 'confirm' }, question, ' ',
        h('button', { type: 'button', class: 'danger', onclick: () => act().catch((err: unknown) => clear(status, errorBox(err))) }, 'Yes'),
        h('button', { type: 'button', onclick: () => clear(status) }, 'No'),
      ),
    );
  });
  return button;
}

/**
 * One fact: what it says, how much it is still believed (effective
 * confidence, decay class, freshness), where it came from, when it held and,
 * when superseded, what replaced it; with its corrections.
 */
export function renderFactLine(line: FactLine, actions: FactActions): HTMLElement {
  const f = line.fact;
  const extra = h('div', { class: 'fact-extra' });
  const status = h('div', { class: 'fact-status' });
  const buttons = h('div', { class: 'fact-actions' });
  if (line.forgotten) {
    buttons.append(
      h('button', { type: 'button', onclick: () => actions.api.post(`/facts/${f.id}/restore`).then(actions.changed, (err: unknown) => clear(status, errorBox(err))) }, 'Restore'),
    );
  } else {
    if (!line.superseded) {
      buttons.append(h('button', { type: 'button', onclick: () => clear(extra, correctionForm(line, actions, () => clear(extra))) }, 'Correct'));
    }
    buttons.append(
      confirmingButton('Forget', 'Forget this fact?', async () => {
        await actions.api.post(`/facts/${f.id}/forget`);
        actions.changed();
      }, status),
    );
  }
  if (f.object && !line.forgotten) {
    buttons.append(
      confirmingButton('Delete relationship', `Delete the relationship to ${f.object.name}?`, async () => {
        await actions.api.delete(`/facts/${f.id}`);
        actions.changed();
      }, status),
    );
  }
  if (f.episode_ids.length) {
    buttons.append(h('button', { type: 'button', onclick: () => void showEpisodes(actions.api, f.episode_ids, extra) }, `Episodes (${f.episode_ids.length})`));
  }
  const forgotten = line.forgotten ? h('p', { class: 'replaced' }, `Forgotten on ${when(f.forgotten_at)}: hidden from every read`) : null;
  const replaced = line.superseded
    ? h(
        'p',
        { class: 'replaced' },
        line.replacedBy ? `Replaced by “${objectText(line.replacedBy)}”` : 'No longer holds',
        line.replacedAt ? ` on ${when(line.replacedAt)}` : '',
      )
    : null;
  return h(
    'li',
    {
      class: `fact${line.superseded ? ' superseded' : ''}${line.forgotten ? ' forgotten' : ''}`,
      'data-fact-id': f.id,
      'data-superseded': String(line.superseded),
      'data-forgotten': String(line.forgotten),
    },
    h('p', { class: 'fact-text' }, f.fact_text),
    h(
      'dl',
      { class: 'fact-meta' },
      h('dt', {}, 'object'), h('dd', { class: 'object' }, objectText(f)),
      h('dt', {}, 'confidence'), h('dd', { class: 'confidence', title: `stated ${percent(f.confidence)}` }, percent(f.effective_confidence)),
      h('dt', {}, 'decay'), h('dd', {}, f.decay_class.replace('_', ' ')),
      h('dt', {}, 'fresh'), h('dd', { class: 'freshness' }, f.freshness),
      h('dt', {}, 'valid'), h('dd', { class: 'validity' }, interval(f.valid_from, f.invalid_at)),
      h('dt', {}, 'sensitivity'), h('dd', { class: `sensitivity-${f.sensitivity}` }, f.sensitivity),
      h('dt', {}, 'source'), h('dd', { class: 'source' }, f.source),
    ),
    replaced,
    forgotten,
    buttons,
    status,
    extra,
  );
}
