// Small DOM helpers: element building (text only, never innerHTML), formatting, the three
// states every view shows (loading, empty, error) and copy-to-clipboard.

/**
 * Builds an element. `attrs`: `class`, `on<event>` functions, booleans (`disabled`), anything else
 * as an attribute. Children: nodes, strings (as text), arrays, null/false (skipped).
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'value') el.value = value;
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of `el`. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** "3 s", "4 min", "2 h 5 min", "3 d 4 h". */
export function formatAge(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const hrs = Math.floor(m / 60);
  if (hrs < 48) return `${hrs} h ${m % 60} min`;
  return `${Math.floor(hrs / 24)} d ${hrs % 24} h`;
}

/** Local date and time of an ISO timestamp, with the ISO string as tooltip. */
export function timeEl(iso) {
  const d = new Date(iso);
  const text = Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
  return h('time', { datetime: iso, title: iso }, text);
}

/** Pretty JSON in a scrollable block. */
export function jsonBlock(value, attrs = {}) {
  return h(
    'pre',
    { class: 'json', ...attrs },
    value === undefined ? '(none)' : JSON.stringify(value, null, 2),
  );
}

/** One `<dt>`/`<dd>` pair of a `<dl class="meta">`. */
export function metaItem(label, value) {
  return h('div', { class: 'meta-item' }, h('dt', {}, label), h('dd', {}, value));
}

export function loadingState(text = 'Loading…') {
  return h(
    'div',
    { class: 'state state-loading', role: 'status', 'data-state': 'loading' },
    h('span', { class: 'spinner', 'aria-hidden': 'true' }),
    text,
  );
}

export function emptyState(title, hint) {
  return h(
    'div',
    { class: 'state state-empty', 'data-state': 'empty' },
    h('strong', {}, title),
    hint ? h('p', {}, hint) : null,
  );
}

/**
 * The error state: the envelope's `message` first, then its code and status, the field errors of a
 * `validation_error`, and an optional retry button.
 */
export function errorState(error, retry) {
  const code = error && error.code ? error.code : 'error';
  const fieldErrors =
    error && error.details && Array.isArray(error.details.errors) ? error.details.errors : [];
  return h(
    'div',
    { class: 'state state-error', role: 'alert', 'data-state': 'error', 'data-error-code': code },
    h('strong', { class: 'error-message' }, error && error.message ? error.message : String(error)),
    h('p', { class: 'muted' }, error && error.status ? `${error.status} ${code}` : code),
    fieldErrors.length
      ? h(
          'ul',
          { class: 'field-errors' },
          fieldErrors.map((e) => h('li', {}, h('code', {}, e.path || '/'), ' ', e.message)),
        )
      : null,
    retry ? h('button', { type: 'button', class: 'btn', onclick: retry }, 'Retry') : null,
  );
}

/** Copies text; falls back to a selected hidden textarea where the Clipboard API is unavailable. */
export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // fall back below
    }
  }
  const area = h('textarea', { class: 'offscreen', readonly: true }, text);
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } finally {
    area.remove();
  }
  return ok;
}

/** A button that copies `text` and says so; the text is also in `data-copy` for scripts. */
export function copyButton(text, label = 'Copy') {
  const button = h(
    'button',
    { type: 'button', class: 'btn btn-small', 'data-copy': text, title: text },
    label,
  );
  button.addEventListener('click', async () => {
    const ok = await copyText(text);
    const before = label;
    button.textContent = ok ? 'Copied' : 'Copy failed';
    button.classList.toggle('ok', ok);
    setTimeout(() => {
      button.textContent = before;
      button.classList.remove('ok');
    }, 1500);
  });
  return button;
}

/** A random RFC 4122 v4 id; `crypto.getRandomValues` works outside secure contexts too. */
export function uuid() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A status pill: `waiting-approval`, `completed`, `open`… */
export function badge(text, kind = text) {
  return h('span', { class: `badge badge-${String(kind).replace(/[^a-z0-9-]/gi, '-')}` }, text);
}
