import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { OpenWopClient } from '@openwop/sdk';
import { REPO_ROOT, TEST_KEYS, waitFor } from '@openwop/testing';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { MODES, type HostUnderTest } from './host-matrix';
import { chromiumExecutable, waitStatus } from './e2e-kit';

// The page behind a signed link, in a real headless Chromium on a phone-sized viewport (390x844),
// against the built host in both modes: no API key, only the link. Approve through the resolving
// link and the run completes; the inspect-only link shows the same read-only; a used link, a run
// that ended and a JSON client each get their plain answer; a clarification and a conversation are
// answered through the page. Screenshots land in test-output/signed-link/ (gitignored).

const SHOTS = resolve(REPO_ROOT, 'test-output/signed-link');
const UI_WAIT_MS = 30_000;
const PHONE = { width: 390, height: 844 } as const;

interface Snapshot {
  status: string;
  interrupt?: { callbackUrl?: string; inspectUrl?: string };
}

interface RunEvent {
  type: string;
  payload: Record<string, unknown>;
}

describe.each(['embedded', 'distributed'] as const)('signed-link page, %s mode', (mode) => {
  let hut: HostUnderTest;
  let base: string;
  let client: OpenWopClient;
  let browser: Browser;
  let phone: BrowserContext;
  const pageErrors: string[] = [];
  /** Every request the pages made: where to and whether it carried a Referer or credentials. */
  const requests: { url: string; referer?: string; authorization?: string }[] = [];
  const links = new Set<string>();

  /** Starts a run of `workflowId` and waits for its signed links (minted just after it suspends). */
  async function startWithLinks(
    workflowId: string,
  ): Promise<{ runId: string; callbackUrl: string; inspectUrl: string }> {
    const { runId } = await client.call<{ runId: string }>('POST', '/v1/runs', { workflowId });
    const { interrupt } = await waitFor(
      async () => {
        const s = await client.call<Snapshot>('GET', `/v1/runs/${runId}`);
        return s.interrupt?.callbackUrl && s.interrupt.inspectUrl ? s : undefined;
      },
      { timeoutMs: UI_WAIT_MS, what: `signed links of run ${runId}` },
    );
    links.add(interrupt!.callbackUrl!).add(interrupt!.inspectUrl!);
    return { runId, callbackUrl: interrupt!.callbackUrl!, inspectUrl: interrupt!.inspectUrl! };
  }

  async function open(url: string, state: string): Promise<Page> {
    const page = await phone.newPage();
    await page.goto(url);
    await page.locator(`main[data-state="${state}"]`).waitFor({ timeout: UI_WAIT_MS });
    return page;
  }

  /** Nothing runs off a 390-px screen: the page never scrolls sideways. */
  async function expectFitsPhone(page: Page): Promise<void> {
    const { scrollWidth, innerWidth } = await page.evaluate<{ scrollWidth: number; innerWidth: number }>(
      '({ scrollWidth: document.scrollingElement.scrollWidth, innerWidth: window.innerWidth })',
    );
    expect(innerWidth).toBe(PHONE.width);
    expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
  }

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: resolve(SHOTS, `${name}-${mode}.png`), fullPage: true });

  async function events(runId: string): Promise<RunEvent[]> {
    return (await client.call<{ events: RunEvent[] }>('GET', `/v1/runs/${runId}/events/poll`)).events;
  }

  beforeAll(async () => {
    const executablePath = chromiumExecutable();
    mkdirSync(SHOTS, { recursive: true });
    hut = await MODES[mode]();
    base = hut.host.gateways[0]!;
    client = new OpenWopClient({ baseUrl: base, apiKey: TEST_KEYS.t1 });
    browser = await chromium.launch({ executablePath });
    phone = await browser.newContext({
      viewport: PHONE,
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    phone.on('page', (page) => {
      page.on('pageerror', (e) => pageErrors.push(e.message));
      page.on('request', (r) => {
        const headers = r.headers();
        requests.push({ url: r.url(), referer: headers.referer, authorization: headers.authorization });
      });
    });
    await client.call('POST', '/v1/workflows', {
      id: 'link-review',
      name: 'Signed link review',
      version: '1.0.0',
      nodes: [
        {
          id: 'review',
          typeId: 'core.approvalGate',
          config: {
            title: 'Publish the Q3 pricing table for every region and every currency we sell in',
            description:
              'Marketing drafted the new prices. Accept, reject, or send them back with what should change.',
            artifactType: 'pricing-table',
            artifactId: 'pricing-q3-with-a-rather-long-identifier-that-must-still-wrap-on-a-phone',
            artifactData: {
              currency: 'EUR',
              plans: [
                { name: 'Starter', price: 9 },
                { name: 'Team', price: 29 },
              ],
            },
            actions: ['accept', 'reject', 'refine'],
          },
        },
      ],
      edges: [],
      triggers: [],
      variables: [],
      metadata: {},
      settings: {},
    });
  });
  afterAll(async () => {
    await browser?.close();
    await hut?.stop();
  });
  afterEach(() => {
    // An uncaught error in the page's scripts fails the test that caused it.
    expect(pageErrors.splice(0)).toEqual([]);
  });

  it('opens the callbackUrl on a 390-px phone with no key, approves, and the run completes', async () => {
    const { runId, callbackUrl } = await startWithLinks('link-review');
    const page = await open(callbackUrl, 'pending');
    const main = page.locator('main');
    expect(await main.getAttribute('data-intent')).toBe('resolve');
    expect(await main.getAttribute('data-kind')).toBe('approval');
    expect(await page.locator('h1').textContent()).toBe(
      'Publish the Q3 pricing table for every region and every currency we sell in',
    );
    expect(await page.locator('[data-testid=description]').textContent()).toContain(
      'Marketing drafted the new prices.',
    );
    // Said in words, not as the kind's wire name.
    expect(await page.locator('[data-testid=kind]').textContent()).toBe('An approval waits for your answer');
    // The artifact reads as fields and a table; its exact JSON is one click away.
    const readable = page.locator('[data-testid=artifact-readable]');
    // (Key order is the stored JSON's: Postgres' jsonb puts shorter keys first.)
    expect((await readable.locator(':scope > dl > dt').allTextContents()).sort()).toEqual([
      'currency',
      'plans',
    ]);
    expect(await readable.locator(':scope > dl > dt:text-is("currency") + dd').textContent()).toBe('EUR');
    expect(await readable.locator(':scope > dl > dt:text-is("plans") + dd table').count()).toBe(1);
    expect(await readable.locator('table th').allTextContents()).toEqual(['name', 'price']);
    expect(await readable.locator('table tbody tr').allTextContents()).toEqual(['Starter9', 'Team29']);
    expect(await page.locator('[data-testid=artifact-json]').isVisible()).toBe(false);
    await page.locator('[data-testid=artifact] summary').tap();
    expect(JSON.parse((await page.locator('[data-testid=artifact-json]').textContent())!)).toEqual({
      currency: 'EUR',
      plans: [
        { name: 'Starter', price: 9 },
        { name: 'Team', price: 29 },
      ],
    });
    await shot(page, 'approval-artifact-json-phone');
    await page.locator('[data-testid=artifact] summary').tap();
    // The expiry, as a time and as time left.
    expect(await page.locator('[data-testid=expiry]').textContent()).toMatch(
      /^This link works until .+ \(\d+ min left\)\.$/,
    );
    // Only the actions the gate allows.
    const offered: (string | null)[] = [];
    for (const button of await page.locator('[data-testid=approval-actions] button').all()) {
      offered.push(await button.getAttribute('data-action'));
    }
    expect(offered).toEqual(['accept', 'reject', 'refine']);
    await expectFitsPhone(page);
    await shot(page, 'approval-phone');

    // Request changes needs a note: stopped in the page, nothing sent.
    await page.locator('button[data-action=refine]').click();
    expect(await page.locator('[data-testid=inline-error]').textContent()).toContain(
      'Say what should change',
    );
    expect((await client.call<Snapshot>('GET', `/v1/runs/${runId}`)).status).toBe('waiting-approval');

    await page.locator('#feedback').fill('Looks right to me.');
    await page.locator('button[data-action=accept]').tap();
    await page.locator('main[data-state=done]').waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator('[data-testid=done]').textContent()).toBe('You accepted.');
    // The page follows the run to its end through the link alone, and says it plainly.
    await page.locator('[data-testid=run-status]', { hasText: 'completed' }).waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator('[data-testid=run-status]').textContent()).toBe(
      'Thanks — the workflow has completed.',
    );
    await expectFitsPhone(page);
    await shot(page, 'approval-accepted-phone');
    await page.close();

    // The API agrees: the run completed with this answer, decided through the token.
    await waitStatus(client, runId, 'completed', UI_WAIT_MS);
    const received = (await events(runId)).find((e) => e.type === 'approval.received');
    expect(received?.payload).toMatchObject({ action: 'accept', feedback: 'Looks right to me.' });
    expect(String(received?.payload.decidedBy)).toMatch(/^token:/);
  });

  it('a link to a gate that needs two people offers no vote, only the question, and says why', async () => {
    await client.call('POST', '/v1/workflows', {
      id: 'link-quorum',
      name: 'Signed link, two approvers',
      version: '1.0.0',
      nodes: [
        {
          id: 'review',
          typeId: 'core.approvalGate',
          config: {
            title: 'Two people approve this',
            actions: ['accept', 'reject', 'ask'],
            requiredApprovals: 2,
          },
        },
      ],
      edges: [],
      triggers: [],
      variables: [],
      metadata: {},
      settings: {},
    });
    const { runId, callbackUrl } = await startWithLinks('link-quorum');
    const page = await open(callbackUrl, 'pending');
    expect(await page.locator('main').getAttribute('data-intent')).toBe('resolve');
    expect(await page.locator('[data-testid=quorum-note]').textContent()).toContain(
      '2 people must approve this.',
    );
    const offered: (string | null)[] = [];
    for (const button of await page.locator('[data-testid=approval-actions] button').all()) {
      offered.push(await button.getAttribute('data-action'));
    }
    expect(offered).toEqual(['ask']);
    await expectFitsPhone(page);
    await shot(page, 'approval-quorum-phone');
    await page.close();
    expect((await client.call<Snapshot>('GET', `/v1/runs/${runId}`)).status).toBe('waiting-approval');
  });

  it('the inspect-only link shows the same request read-only: no buttons, no form; JSON clients still get JSON', async () => {
    const { runId, callbackUrl, inspectUrl } = await startWithLinks('link-review');
    const page = await open(inspectUrl, 'pending');
    expect(await page.locator('main').getAttribute('data-intent')).toBe('inspect');
    expect(await page.locator('h1').textContent()).toContain('Publish the Q3 pricing table');
    await page.locator('[data-testid=artifact]').waitFor();
    expect(await page.locator('[data-testid=read-only-note]').textContent()).toContain('Read-only link.');
    expect(await page.locator('main button, main textarea, main input, main form').count()).toBe(0);
    await expectFitsPhone(page);
    await shot(page, 'approval-read-only-phone');
    await page.close();

    // JSON clients: fetch's and curl's */*, and application/json, get today's JSON answers.
    for (const accept of ['*/*', 'application/json']) {
      for (const [url, intent] of [
        [callbackUrl, 'resolve'],
        [inspectUrl, 'inspect'],
      ] as const) {
        const res = await fetch(url, { headers: { accept } });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toContain('application/json');
        expect(await res.json()).toMatchObject({ runId, nodeId: 'review', kind: 'approval', intent });
      }
    }
    // A browser's Accept gets the page, the same for every link.
    const html = await fetch(callbackUrl, {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await html.text()).not.toContain(callbackUrl.split('/').pop()!);
    await client.call('POST', `/v1/runs/${runId}/interrupts/review`, {
      action: 'reject',
      feedback: 'not now',
    });
    await waitStatus(client, runId, 'failed', UI_WAIT_MS);
  });

  it('a used link says it was used, and how; a JSON client gets the 409 envelope', async () => {
    const { runId, callbackUrl, inspectUrl } = await startWithLinks('link-review');
    // Someone answers elsewhere first (through the API with a key).
    await client.call('POST', `/v1/runs/${runId}/interrupts/review`, {
      action: 'reject',
      feedback: 'not this quarter',
    });
    // A rejected gate fails its run.
    await waitStatus(client, runId, 'failed', UI_WAIT_MS);
    for (const [url, name] of [
      [callbackUrl, 'used-phone'],
      [inspectUrl, 'used-read-only-phone'],
    ] as const) {
      const page = await open(url, 'used');
      expect(await page.locator('h1').textContent()).toBe('This link was already used');
      expect(await page.locator('main').textContent()).toContain('The request was rejected on ');
      expect(await page.locator('[data-testid=run-status]').textContent()).toBe('failed');
      expect(await page.locator('main button').count()).toBe(0);
      await expectFitsPhone(page);
      await shot(page, name);
      await page.close();
    }
    const json = await fetch(callbackUrl, { method: 'GET' });
    expect(json.status).toBe(409);
    expect(await json.json()).toMatchObject({ error: 'interrupt_already_resolved' });
  });

  it('a link whose run was cancelled says the run ended', async () => {
    const { runId, callbackUrl } = await startWithLinks('link-review');
    await client.call('POST', `/v1/runs/${runId}/cancel`, {});
    await waitStatus(client, runId, 'cancelled', UI_WAIT_MS);
    const page = await open(callbackUrl, 'run-ended');
    expect(await page.locator('h1').textContent()).toBe('The run has ended');
    expect(await page.locator('[data-testid=run-status]').textContent()).toBe('cancelled');
    await expectFitsPhone(page);
    await shot(page, 'run-ended-phone');
    await page.close();
  });

  it('a link that was never issued says it is not valid', async () => {
    const { callbackUrl } = await startWithLinks('link-review');
    const [payload, mac] = callbackUrl.split('/').pop()!.split('.');
    const forged = `${base}/v1/interrupts/${payload}.${mac!.slice(0, -4)}AAAA`;
    const page = await open(forged, 'invalid');
    expect(await page.locator('h1').textContent()).toBe('This link is not valid');
    await page.close();
  });

  it('answers a clarification through the form built from its questions', async () => {
    const { runId, callbackUrl } = await startWithLinks('conformance-clarification');
    const page = await open(callbackUrl, 'pending');
    const form = page.locator('[data-testid=clarification-form]');
    await form.getByLabel('What is your favorite color?').fill('teal');
    await expectFitsPhone(page);
    await shot(page, 'clarification-phone');
    await form.getByRole('button', { name: 'Send answers' }).tap();
    await page.locator('main[data-state=done]').waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator('[data-testid=done]').textContent()).toBe('Your answers were sent.');
    await page.locator('[data-testid=run-status]', { hasText: 'completed' }).waitFor({ timeout: UI_WAIT_MS });
    await page.close();
    await waitStatus(client, runId, 'completed', UI_WAIT_MS);
    expect((await events(runId)).find((e) => e.type === 'interrupt.resolved')?.payload.resumeValue).toEqual({
      answers: [{ id: 'q1', answer: 'teal' }],
    });
  });

  it('a conversation: the live transcript, a turn and its reply, then ending it resumes the run', async () => {
    await client.call('POST', '/v1/workflows', {
      id: 'link-chat',
      name: 'Signed link chat',
      version: '1.0.0',
      nodes: [
        {
          id: 'chat',
          typeId: 'agent.conversation',
          config: {
            provider: 'scripted',
            script: ['Hello! Where shall we go?', 'Noted: Lisbon. I will look at flights.', 'Done.'],
          },
        },
        { id: 'after', typeId: 'core.noop', config: {} },
      ],
      edges: [{ id: 'e0', sourceNodeId: 'chat', targetNodeId: 'after' }],
      triggers: [],
      variables: [],
      metadata: {},
      settings: {},
    });
    const { runId, callbackUrl, inspectUrl } = await startWithLinks('link-chat');
    const page = await open(callbackUrl, 'pending');
    expect(await page.locator('[data-testid=kind]').textContent()).toBe(
      'A conversation waits for your answer',
    );
    const transcript = page.locator('[data-testid=transcript]');
    await transcript.locator('li', { hasText: 'Hello! Where shall we go?' }).waitFor({ timeout: UI_WAIT_MS });
    await page.locator('#turn-input').fill('Lisbon');
    await page.locator('[data-testid=send-turn]').tap();
    await transcript.locator('li[data-role=user]', { hasText: 'Lisbon' }).waitFor({ timeout: UI_WAIT_MS });
    await transcript
      .locator('li', { hasText: 'Noted: Lisbon. I will look at flights.' })
      .waitFor({ timeout: UI_WAIT_MS });
    await expectFitsPhone(page);
    await shot(page, 'conversation-phone');

    // The inspect-only link follows the same transcript, with no box to write in.
    const watcher = await open(inspectUrl, 'pending');
    await watcher
      .locator('[data-testid=transcript] li', { hasText: 'Noted: Lisbon.' })
      .waitFor({ timeout: UI_WAIT_MS });
    expect(await watcher.locator('main button, main textarea').count()).toBe(0);
    await shot(watcher, 'conversation-read-only-phone');
    await watcher.close();

    await page.locator('[data-testid=close-conversation]').tap();
    await page.locator('main[data-state=done]').waitFor({ timeout: UI_WAIT_MS });
    await page.locator('[data-testid=run-status]', { hasText: 'completed' }).waitFor({ timeout: UI_WAIT_MS });
    await page.close();
    await waitStatus(client, runId, 'completed', UI_WAIT_MS);
  });

  it('the pages asked only this origin, sent no Referer and no credentials; no log line holds a token', () => {
    const origin = new URL(base).origin;
    expect(requests.length).toBeGreaterThan(10);
    for (const r of requests) {
      expect(r.url.startsWith(`${origin}/`) || r.url.startsWith('data:') ? 'same origin' : r.url).toBe(
        'same origin',
      );
      // Chromium reports an empty header for a request sent with no Referer.
      expect(r.referer ?? '').toBe('');
      expect(r.authorization).toBeUndefined();
    }
    const logs = hut.host.processes.map((p) => p.output()).join('\n');
    expect(links.size).toBeGreaterThan(0);
    for (const link of links) {
      const token = link.split('/').pop()!;
      expect(logs.includes(token)).toBe(false);
      expect(logs.includes(token.split('.')[1]!)).toBe(false);
    }
  });
});
