// The admin page: asks for an API key (kept in sessionStorage), then routes on the hash:
//   #/                               pending interrupts (#/?kind=approval filters)
//   #/runs/<runId>/interrupts/<node> one interrupt: approval, clarification, conversation, other

import { api, forgetApiKey, getApiKey, paths, setApiKey } from './api.js';
import { errorState, h, mount } from './dom.js';
import { interruptView } from './interrupt-view.js';
import { pendingListView } from './pending-list.js';

const main = document.getElementById('main');
const keyStatus = document.getElementById('key-status');
let cleanup = () => undefined;

function route() {
  cleanup();
  cleanup = () => undefined;
  if (!getApiKey()) return signIn();
  renderKeyStatus();
  const raw = location.hash.replace(/^#/, '') || '/';
  const [path, search = ''] = raw.split('?');
  const query = new URLSearchParams(search);
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  document.title = 'OpenWOP admin';
  if (parts.length === 0 || (parts.length === 1 && parts[0] === 'interrupts')) {
    cleanup = pendingListView(main, { query });
  } else if (parts.length === 4 && parts[0] === 'runs' && parts[2] === 'interrupts') {
    document.title = `${parts[3]} · ${parts[1]} · OpenWOP admin`;
    cleanup = interruptView(main, { runId: parts[1], nodeId: parts[3] });
  } else {
    mount(
      main,
      h(
        'section',
        { class: 'card' },
        h('h1', {}, 'Not found'),
        h('p', {}, 'No such page. '),
        h('a', { href: '#/' }, 'Pending interrupts'),
      ),
    );
  }
}

function renderKeyStatus() {
  const key = getApiKey();
  mount(
    keyStatus,
    key
      ? [
          h('span', { class: 'muted' }, 'API key …', h('code', {}, key.slice(-4))),
          h(
            'button',
            {
              type: 'button',
              class: 'btn btn-small',
              'data-testid': 'forget-key',
              onclick: () => (forgetApiKey(), route()),
            },
            'Forget key',
          ),
        ]
      : null,
  );
}

/** The key form: the key is checked against `GET /v1/interrupts` before it is kept. */
function signIn(reason) {
  renderKeyStatus();
  const input = h('input', {
    id: 'api-key',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
    placeholder: 'API key',
  });
  const out = h('div', { class: 'result' }, reason ? errorState(reason) : null);
  const button = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Use this key');
  mount(
    main,
    h(
      'section',
      { class: 'card narrow' },
      h('h1', {}, 'Sign in'),
      h(
        'p',
        { class: 'muted' },
        'Paste an API key of this host (WOP_API_KEYS; in embedded development mode, .infra/embedded/dev-api-key). ',
        'It stays in this tab (sessionStorage) and is sent as Authorization: Bearer on every call; it needs runs:read to list and approvals:respond to resolve.',
      ),
      h(
        'form',
        {
          class: 'form',
          'data-testid': 'sign-in',
          onsubmit: async (e) => {
            e.preventDefault();
            const key = input.value.trim();
            if (!key) return;
            button.disabled = true;
            setApiKey(key);
            try {
              await api('GET', paths.interrupts({ limit: '1' }));
              route();
            } catch (err) {
              forgetApiKey();
              mount(out, errorState(err));
            } finally {
              button.disabled = false;
            }
          },
        },
        h('div', { class: 'field' }, h('label', { for: 'api-key' }, 'API key'), input),
        h('div', { class: 'actions' }, button),
      ),
      out,
    ),
  );
  input.focus();
}

window.addEventListener('hashchange', route);
window.addEventListener('openwop:unauthenticated', (e) => {
  if (!getApiKey()) return;
  forgetApiKey();
  cleanup();
  cleanup = () => undefined;
  signIn(e.detail);
});
route();
