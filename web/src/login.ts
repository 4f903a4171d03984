import { login } from './api.js';
import { clear, errorBox, h } from './dom.js';
import type { SessionInfo } from './types.js';

/** Asks once for the bootstrap secret; the server answers with an httpOnly session cookie. */
export function renderLogin(root: HTMLElement, onLoggedIn: (session: SessionInfo) => void): void {
  const secret = h('input', { type: 'password', name: 'secret', autocomplete: 'current-password', 'aria-label': 'Secret', required: true, autofocus: true });
  const status = h('div', { class: 'status' });
  const form = h(
    'form',
    { class: 'login' },
    h('h1', {}, 'Mnemo · knowledge graph'),
    h('p', {}, 'Enter the secret the operator configured (WEB_APP_BOOTSTRAP_SECRET).'),
    secret,
    h('button', { type: 'submit' }, 'Open'),
    status,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      onLoggedIn(await login(secret.value));
    } catch (err) {
      clear(status, errorBox(err));
    }
  });
  clear(root, form);
  secret.focus();
}
