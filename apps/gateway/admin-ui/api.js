// The page's only way to the host: the OpenWOP REST API with the operator's API key as
// `Authorization: Bearer`. The key lives in sessionStorage (this tab only, gone when it closes).

import { TERMINAL_RUN_STATUSES } from './vocabulary.js';

const KEY_STORAGE = 'openwop.admin.apiKey';

export function getApiKey() {
  return sessionStorage.getItem(KEY_STORAGE);
}

export function setApiKey(key) {
  sessionStorage.setItem(KEY_STORAGE, key);
}

export function forgetApiKey() {
  sessionStorage.removeItem(KEY_STORAGE);
}

/** A refused or failed call: the error envelope's `error` (as `code`), `message` and `details`. */
export class ApiFailure extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

function headers(extra = {}) {
  const key = getApiKey();
  return { accept: 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra };
}

async function failureOf(res) {
  let body;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  if (body && typeof body.error === 'string')
    return new ApiFailure(res.status, body.error, body.message || body.error, body.details);
  return new ApiFailure(
    res.status,
    `http_${res.status}`,
    `${res.status} ${res.statusText || 'request failed'}`,
  );
}

/**
 * One JSON call. Resolves with the parsed body; rejects with {@link ApiFailure} (a network error
 * becomes code `network_error`). A 401 also fires `openwop:unauthenticated` so the page asks again.
 */
export async function api(method, path, body, { signal } = {}) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (e) {
    if (e && e.name === 'AbortError') throw e;
    throw new ApiFailure(0, 'network_error', `The host did not answer: ${e && e.message ? e.message : e}`);
  }
  if (!res.ok) {
    const failure = await failureOf(res);
    if (res.status === 401)
      window.dispatchEvent(new CustomEvent('openwop:unauthenticated', { detail: failure }));
    throw failure;
  }
  return res.status === 204 ? undefined : res.json();
}

/**
 * Reads a server-sent event stream with the API key (EventSource cannot send headers), calling
 * `onEvent({id, event, data})` per frame with `data` parsed as JSON. Resolves when the server ends
 * the stream (the run is terminal); rejects with {@link ApiFailure}. Abort with `signal`.
 */
export async function streamEvents(path, onEvent, { signal, lastEventId } = {}) {
  let res;
  try {
    res = await fetch(path, {
      headers: headers({
        accept: 'text/event-stream',
        ...(lastEventId !== undefined ? { 'last-event-id': String(lastEventId) } : {}),
      }),
      signal,
    });
  } catch (e) {
    if (e && e.name === 'AbortError') return;
    throw new ApiFailure(
      0,
      'network_error',
      `The event stream did not open: ${e && e.message ? e.message : e}`,
    );
  }
  if (!res.ok) throw await failureOf(res);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const raw = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
        const frame = parseFrame(raw);
        if (frame) onEvent(frame);
      }
    }
  } catch (e) {
    if (e && e.name === 'AbortError') return;
    throw new ApiFailure(0, 'network_error', `The event stream broke: ${e && e.message ? e.message : e}`);
  }
}

function parseFrame(raw) {
  let id;
  let event = 'message';
  const data = [];
  for (const line of raw.split(/\r?\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  const text = data.join('\n');
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { id, event, data: parsed };
}

const enc = encodeURIComponent;

/** The paths the page calls. */
export const paths = {
  interrupts: (query) => `/v1/interrupts${query ? `?${new URLSearchParams(query)}` : ''}`,
  run: (runId) => `/v1/runs/${enc(runId)}`,
  resolve: (runId, nodeId) => `/v1/runs/${enc(runId)}/interrupts/${enc(nodeId)}`,
  claim: (runId, nodeId) => `/v1/runs/${enc(runId)}/interrupts/${enc(nodeId)}:claim`,
  release: (runId, nodeId) => `/v1/runs/${enc(runId)}/interrupts/${enc(nodeId)}:release`,
  resolveConversation: (runId) => `/v1/runs/${enc(runId)}:resolveInterrupt`,
  conversations: (runId) => `/v1/runs/${enc(runId)}/conversations`,
  conversation: (runId, conversationId, after) =>
    `/v1/runs/${enc(runId)}/conversations/${enc(conversationId)}${after !== undefined ? `?after=${enc(after)}` : ''}`,
  events: (runId, mode) => `/v1/runs/${enc(runId)}/events${mode ? `?streamMode=${enc(mode)}` : ''}`,
};

/** Run statuses after which nothing changes. */
export const TERMINAL_STATUSES = new Set(TERMINAL_RUN_STATUSES);
