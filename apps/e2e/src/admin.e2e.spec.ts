import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { OpenWopClient } from '@openwop/sdk';
import { REPO_ROOT, TEST_KEYS, waitFor } from '@openwop/testing';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { MODES, type HostUnderTest } from './host-matrix';
import { chromiumExecutable, waitStatus } from './e2e-kit';

// The admin page (`GET /admin`) in a real headless Chromium against the built host: sign in with
// an API key, find a pending approval in the list, open its deep link, copy its signed resolve
// link, accept it and watch the run complete; a refusal shows the error envelope's message.
// Screenshots of each view land in test-output/admin/ (gitignored).

const SHOTS = resolve(REPO_ROOT, 'test-output/admin');
const UI_WAIT_MS = 30_000;

interface Snapshot {
  status: string;
  interrupt?: { callbackUrl?: string; inspectToken?: string };
}

/** The admin page signed in with `key` (typed into the page's form, as a person would). */
async function signIn(context: BrowserContext, base: string, key: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${base}/admin`);
  await page.locator('#api-key').fill(key);
  await page.locator('[data-testid=sign-in] button[type=submit]').click();
  await page
    .locator('[data-testid=pending-table], [data-state=empty]')
    .first()
    .waitFor({ timeout: UI_WAIT_MS });
  return page;
}

describe.each(['embedded', 'distributed'] as const)('admin page, %s mode', (mode) => {
  let hut: HostUnderTest;
  let base: string;
  let client: OpenWopClient;
  let browser: Browser;
  let context: BrowserContext;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const executablePath = chromiumExecutable();
    mkdirSync(SHOTS, { recursive: true });
    // Scripted agents speak word by word, so the page has a stream to show.
    hut = await MODES[mode]({ AGENT_TOKEN_DELAY_MS: '100' });
    base = hut.host.gateways[0]!;
    client = new OpenWopClient({ baseUrl: base, apiKey: TEST_KEYS.t1 });
    browser = await chromium.launch({ executablePath });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    context.on('page', (page) => {
      page.on('pageerror', (e) => pageErrors.push(e.message));
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

  it('serves the page without a key, asks for one, and shows the envelope message for a wrong key', async () => {
    const res = await fetch(`${base}/admin`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect((await fetch(`${base}/admin/assets/..%2Fpackage.json`)).status).toBe(404);
    // The data behind it is not public.
    expect((await fetch(`${base}/v1/interrupts`)).status).toBe(401);

    const page = await context.newPage();
    await page.goto(`${base}/admin`);
    await page.locator('#api-key').fill('not-a-key');
    await page.locator('[data-testid=sign-in] button[type=submit]').click();
    const error = page.locator('[data-state=error]');
    await error.waitFor({ timeout: UI_WAIT_MS });
    expect(await error.getAttribute('data-error-code')).toBe('unauthenticated');
    expect(await error.locator('.error-message').textContent()).toBe('The API key is not valid.');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.screenshot({ path: resolve(SHOTS, `sign-in-error-${mode}.png`) });
    await page.close();
  });

  it('lists a pending approval, opens it, copies its token link, accepts it, and the run completes', async () => {
    const { runId } = await client.call<{ runId: string }>('POST', '/v1/runs', {
      workflowId: 'conformance-approval',
    });
    await waitStatus(client, runId, 'waiting-approval', UI_WAIT_MS);
    const { runId: other } = await client.call<{ runId: string }>('POST', '/v1/runs', {
      workflowId: 'conformance-clarification',
    });
    await waitStatus(client, other, 'waiting-input', UI_WAIT_MS);

    const page = await signIn(context, base, TEST_KEYS.t1);
    expect(await page.evaluate(() => sessionStorage.getItem('openwop.admin.apiKey'))).toBe(TEST_KEYS.t1);
    const row = page.locator(`tr[data-run-id="${runId}"]`);
    await row.waitFor({ timeout: UI_WAIT_MS });
    expect(await row.getAttribute('data-node-id')).toBe('gate');
    expect(await row.getAttribute('data-kind')).toBe('approval');
    // Each row says what is asked, not only ids: the approval's title, the clarification's question.
    expect(await row.locator('[data-testid=asked]').textContent()).toBe('approval Conformance approval');
    await page.locator(`tr[data-run-id="${other}"]`).waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator(`tr[data-run-id="${other}"] [data-testid=asked]`).textContent()).toBe(
      'clarification What is your favorite color?',
    );
    await page.screenshot({ path: resolve(SHOTS, `pending-list-${mode}.png`), fullPage: true });

    // The kind filter keeps the approval and drops the clarification.
    await page.locator('#kind-filter').selectOption('approval');
    await page.locator(`tr[data-run-id="${other}"]`).waitFor({ state: 'detached', timeout: UI_WAIT_MS });
    await row.waitFor({ timeout: UI_WAIT_MS });

    await row.getByRole('link', { name: 'Open' }).click();
    await page.locator('[data-testid=approval-actions]').waitFor({ timeout: UI_WAIT_MS });
    expect(new URL(page.url()).hash).toBe(`#/runs/${runId}/interrupts/gate`);
    expect(await page.locator('[data-testid=run-status]').textContent()).toBe('waiting-approval');
    // The five actions are there; the gate offers accept and reject only.
    const offered: [string | null, boolean][] = [];
    for (const button of await page.locator('[data-testid=approval-actions] button').all()) {
      offered.push([await button.getAttribute('data-action'), await button.isEnabled()]);
    }
    expect(offered).toEqual([
      ['accept', true],
      ['reject', true],
      ['edit', false],
      ['refine', false],
      ['ask', false],
    ]);

    // The copy button copies the run snapshot's signed resolve link.
    const { interrupt } = await client.call<Snapshot>('GET', `/v1/runs/${runId}`);
    expect(interrupt?.callbackUrl).toMatch(/\/v1\/interrupts\/[\w-]+\.[\w-]+/);
    await page.getByRole('button', { name: 'Copy resolve link' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor({ timeout: UI_WAIT_MS });
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(interrupt?.callbackUrl);
    await page.screenshot({ path: resolve(SHOTS, `approval-${mode}.png`), fullPage: true });

    // A read-only key (runs:read, no approvals:respond) gets the inspect-only link, never the resolving one.
    const reader = await signIn(context, base, TEST_KEYS.readonly);
    await reader.goto(`${base}/admin#/runs/${runId}/interrupts/gate`);
    await reader.locator('[data-testid=inspect-link]').waitFor({ timeout: UI_WAIT_MS });
    expect(await reader.locator('[data-testid=token-link]').count()).toBe(0);
    expect(await reader.getByRole('button', { name: 'Copy resolve link' }).count()).toBe(0);
    expect(await reader.content()).not.toContain(interrupt!.callbackUrl!.split('/').pop()!);
    await reader.screenshot({ path: resolve(SHOTS, `approval-read-only-${mode}.png`), fullPage: true });
    await reader.close();

    await page.locator('#feedback').fill('Looks right to me.');
    await page.locator('button[data-action=accept]').click();
    await page.locator('[data-testid=resolve-result][data-status=resolved]').waitFor({ timeout: UI_WAIT_MS });
    await page.locator('[data-testid=run-status]', { hasText: 'completed' }).waitFor({ timeout: UI_WAIT_MS });
    await page.screenshot({ path: resolve(SHOTS, `approval-accepted-${mode}.png`), fullPage: true });

    // The page went through the API with the key typed in: the decision carries its principal.
    await waitStatus(client, runId, 'completed', UI_WAIT_MS);
    const events = await client.call<{ events: { type: string; payload: Record<string, unknown> }[] }>(
      'GET',
      `/v1/runs/${runId}/events/poll`,
    );
    const received = events.events.find((e) => e.type === 'approval.received');
    expect(received?.payload).toMatchObject({
      action: 'accept',
      decidedBy: 'key-t1',
      feedback: 'Looks right to me.',
    });

    // Back in the list, nothing of kind approval is pending any more.
    await page.goto(`${base}/admin#/?kind=approval`);
    await page.locator('[data-state=empty]').waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator('[data-state=empty]').textContent()).toContain(
      'No pending approval interrupts.',
    );
    await page.close();
  });

  it('on a phone: the pending list is cards that fit the screen, each saying what is asked, with no token for a read-only key', async () => {
    const title = 'Publish the Q3 pricing table for every region and every currency we sell in';
    await client.call('POST', '/v1/workflows', {
      id: 'admin-phone-review-with-a-rather-long-workflow-identifier-that-does-not-break',
      name: 'Admin page on a phone',
      version: '1.0.0',
      nodes: [
        {
          id: 'review-the-pricing-table-before-it-goes-live',
          typeId: 'core.approvalGate',
          config: {
            title,
            artifactType: 'pricing-table',
            artifactData: { currency: 'EUR' },
            actions: ['accept', 'reject'],
          },
        },
      ],
      edges: [],
      triggers: [],
      variables: [],
      metadata: {},
      settings: {},
    });
    const { runId } = await client.call<{ runId: string }>('POST', '/v1/runs', {
      workflowId: 'admin-phone-review-with-a-rather-long-workflow-identifier-that-does-not-break',
    });
    await waitStatus(client, runId, 'waiting-approval', UI_WAIT_MS);
    // The tokens are minted just after the suspension.
    const { interrupt } = await waitFor(
      async () => {
        const s = await client.call<Snapshot>('GET', `/v1/runs/${runId}`);
        return s.interrupt?.callbackUrl && s.interrupt.inspectToken ? s : undefined;
      },
      { timeoutMs: UI_WAIT_MS, what: `tokens of run ${runId}` },
    );
    const { runId: other } = await client.call<{ runId: string }>('POST', '/v1/runs', {
      workflowId: 'conformance-clarification',
    });
    await waitStatus(client, other, 'waiting-input', UI_WAIT_MS);

    const phone = await browser.newContext({
      viewport: { width: 375, height: 740 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    phone.on('page', (p) => p.on('pageerror', (e) => pageErrors.push(e.message)));
    const overflow = (p: Page) =>
      p.evaluate<{ scrollWidth: number; innerWidth: number }>(
        '({ scrollWidth: document.scrollingElement.scrollWidth, innerWidth: window.innerWidth })',
      );
    try {
      for (const key of [TEST_KEYS.t1, TEST_KEYS.readonly]) {
        const page = await signIn(phone, base, key);
        const row = page.locator(`tr[data-run-id="${runId}"]`);
        await row.waitFor({ timeout: UI_WAIT_MS });
        await page.locator(`tr[data-run-id="${other}"]`).waitFor({ timeout: UI_WAIT_MS });
        expect(await row.locator('[data-testid=asked]').textContent()).toBe(`approval ${title}`);
        expect(await page.locator(`tr[data-run-id="${other}"] [data-testid=asked]`).textContent()).toBe(
          'clarification What is your favorite color?',
        );
        // Nothing runs off the screen: the page does not scroll sideways, each row is a card within it.
        const { scrollWidth, innerWidth } = await overflow(page);
        expect({ scrollWidth, innerWidth }).toEqual({ scrollWidth: expect.any(Number), innerWidth: 375 });
        expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
        const box = (await row.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(innerWidth);
        expect(await row.getByRole('link', { name: 'Open' }).isVisible()).toBe(true);
        // The list carries no token whatever the key (ADR 0015).
        const html = await page.content();
        for (const secret of [interrupt?.callbackUrl, interrupt?.inspectToken]) {
          expect(secret).toEqual(expect.any(String));
          expect(html).not.toContain(secret!.split('/').pop()!);
        }
        await page.screenshot({
          path: resolve(
            SHOTS,
            `pending-list-phone-${key === TEST_KEYS.t1 ? 'responder' : 'read-only'}-${mode}.png`,
          ),
          fullPage: true,
        });

        // The interrupt's own view fits too.
        await row.getByRole('link', { name: 'Open' }).click();
        await page.locator('[data-testid=approval-actions]').waitFor({ timeout: UI_WAIT_MS });
        await page.locator('[data-testid=inspect-link]').waitFor({ timeout: UI_WAIT_MS });
        const view = await overflow(page);
        expect(view.innerWidth).toBe(375);
        expect(view.scrollWidth).toBeLessThanOrEqual(view.innerWidth);
        await page.screenshot({
          path: resolve(
            SHOTS,
            `approval-phone-${key === TEST_KEYS.t1 ? 'responder' : 'read-only'}-${mode}.png`,
          ),
          fullPage: true,
        });
        await page.close();
      }
    } finally {
      await phone.close();
    }
    await client.call('POST', `/v1/runs/${runId}/interrupts/review-the-pricing-table-before-it-goes-live`, {
      action: 'accept',
    });
    await client.call('POST', `/v1/runs/${other}/interrupts/ask`, {
      answers: [{ id: 'q1', answer: 'teal' }],
    });
  });

  it('offers all five actions of a gate that lists them: refine needs feedback, ask stays pending, edit sends the edited artifact', async () => {
    const artifactData = {
      plans: [
        { name: 'Starter', price: 9 },
        { name: 'Team', price: 29 },
      ],
      currency: 'EUR',
    };
    await client.call('POST', '/v1/workflows', {
      id: 'admin-review',
      name: 'Admin page review',
      version: '1.0.0',
      nodes: [
        {
          id: 'review',
          typeId: 'core.approvalGate',
          config: {
            title: 'Publish the Q3 pricing table',
            description: 'Marketing drafted the new prices. Approve, ask, refine, or edit them directly.',
            artifactType: 'pricing-table',
            artifactId: 'pricing-q3',
            artifactData,
            actions: ['accept', 'reject', 'edit', 'refine', 'ask'],
          },
        },
      ],
      edges: [],
      triggers: [],
      variables: [],
      metadata: {},
      settings: {},
    });
    const { runId } = await client.call<{ runId: string }>('POST', '/v1/runs', {
      workflowId: 'admin-review',
    });
    await waitStatus(client, runId, 'waiting-approval', UI_WAIT_MS);
    const page = await signIn(context, base, TEST_KEYS.t1);
    await page.goto(`${base}/admin#/runs/${runId}/interrupts/review`);
    await page.locator('[data-testid=approval-actions]').waitFor({ timeout: UI_WAIT_MS });
    expect(JSON.parse((await page.locator('[data-testid=artifact]').textContent())!)).toEqual(artifactData);
    for (const action of ['accept', 'reject', 'edit', 'refine', 'ask']) {
      expect(await page.locator(`button[data-action=${action}]`).isEnabled()).toBe(true);
    }
    await page.screenshot({ path: resolve(SHOTS, `approval-five-actions-${mode}.png`), fullPage: true });

    // Request changes (refine) without a note is stopped in the page; nothing reaches the host.
    await page.locator('button[data-action=refine]').click();
    expect(
      await page.locator('[data-testid=resolve-card] [data-state=error] .error-message').textContent(),
    ).toContain('Say what should change');

    // Ask records the question and the gate stays open.
    await page.locator('button[data-action=ask]').click();
    await page.locator('#ask-question').fill('Is Team VAT-inclusive?');
    await page.locator('button[data-action=ask]').click();
    await page.locator('[data-testid=resolve-result][data-status=pending]').waitFor({ timeout: UI_WAIT_MS });
    expect((await client.call<Snapshot>('GET', `/v1/runs/${runId}`)).status).toBe('waiting-approval');

    // Edit & accept: the first click opens the editor on the artifact, the second sends it.
    await page.locator('button[data-action=edit]').click();
    const edited = {
      ...artifactData,
      plans: [
        { name: 'Starter', price: 10 },
        { name: 'Team', price: 29 },
      ],
    };
    await page.locator('#edited-artifact').fill(JSON.stringify(edited));
    await page.locator('button[data-action=edit]').click();
    await page.locator('[data-testid=resolve-result][data-status=resolved]').waitFor({ timeout: UI_WAIT_MS });
    await page.locator('[data-testid=run-status]', { hasText: 'completed' }).waitFor({ timeout: UI_WAIT_MS });
    const events = await client.call<{ events: { type: string; payload: Record<string, unknown> }[] }>(
      'GET',
      `/v1/runs/${runId}/events/poll`,
    );
    expect(
      events.events.filter((e) => e.type === 'approval.received').map((e) => e.payload.action),
    ).toContain('edit-accept');
    expect(
      events.events.find((e) => e.type === 'approval.received' && e.payload.action === 'edit-accept')?.payload
        .editedArtifactData,
    ).toEqual(edited);
    await page.close();
  });

  it('answers a clarification through the form built from its questions', async () => {
    const { runId } = await client.call<{ runId: string }>('POST', '/v1/runs', {
      workflowId: 'conformance-clarification',
    });
    await waitStatus(client, runId, 'waiting-input', UI_WAIT_MS);
    const page = await signIn(context, base, TEST_KEYS.t1);
    await page.goto(`${base}/admin#/runs/${runId}/interrupts/ask`);
    const form = page.locator('[data-testid=clarification-form]');
    await form.waitFor({ timeout: UI_WAIT_MS });
    await form.getByLabel('What is your favorite color?').fill('teal');
    await page.screenshot({ path: resolve(SHOTS, `clarification-${mode}.png`), fullPage: true });
    await form.getByRole('button', { name: 'Send answers' }).click();
    await page.locator('[data-testid=run-status]', { hasText: 'completed' }).waitFor({ timeout: UI_WAIT_MS });
    const events = await client.call<{ events: { type: string; payload: Record<string, unknown> }[] }>(
      'GET',
      `/v1/runs/${runId}/events/poll`,
    );
    expect(events.events.find((e) => e.type === 'interrupt.resolved')?.payload.resumeValue).toEqual({
      answers: [{ id: 'q1', answer: 'teal' }],
    });
    await page.close();
  });

  it('shows the error envelope message when the interrupt was resolved elsewhere, and the run keeps its answer', async () => {
    const { runId } = await client.call<{ runId: string }>('POST', '/v1/runs', {
      workflowId: 'conformance-approval',
    });
    await waitStatus(client, runId, 'waiting-approval', UI_WAIT_MS);
    const page = await signIn(context, base, TEST_KEYS.t1);
    await page.goto(`${base}/admin#/runs/${runId}/interrupts/gate`);
    await page.locator('[data-testid=approval-actions]').waitFor({ timeout: UI_WAIT_MS });

    // Someone else rejects first; the page's accept then loses the race.
    await client.call('POST', `/v1/runs/${runId}/interrupts/gate`, { action: 'reject' });
    await page.locator('button[data-action=accept]').click();
    const error = page.locator('[data-testid=resolve-card] [data-state=error]');
    await error.waitFor({ timeout: UI_WAIT_MS });
    expect(await error.getAttribute('data-error-code')).toBe('interrupt_already_resolved');
    const shown = await error.locator('.error-message').textContent();
    const direct = await fetch(`${base}/v1/runs/${runId}/interrupts/gate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEYS.t1}`, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'accept' }),
    });
    expect(direct.status).toBe(409);
    expect(shown).toBe(((await direct.json()) as { message: string }).message);
    await page.locator('[data-testid=run-status]', { hasText: 'failed' }).waitFor({ timeout: UI_WAIT_MS });
    await page.screenshot({ path: resolve(SHOTS, `approval-refused-${mode}.png`), fullPage: true });
    await page.close();
  });
  it('conversation: the live transcript shows the agent, two turns get replies, close resumes the run', async () => {
    const workflow = {
      id: 'admin-chat',
      name: 'Admin page chat',
      version: '1.0.0',
      nodes: [
        {
          id: 'chat',
          typeId: 'agent.conversation',
          config: {
            provider: 'scripted',
            script: [
              'Hello! What shall we plan?',
              'Noted: Lisbon. I will look at flights and hotels for you.',
              'Three days it is.',
            ],
          },
        },
        { id: 'after', typeId: 'core.noop', config: {} },
      ],
      edges: [{ id: 'e0', sourceNodeId: 'chat', targetNodeId: 'after' }],
      triggers: [],
      variables: [],
      metadata: {},
      settings: {},
    };
    await client.call('POST', '/v1/workflows', workflow);
    const { runId } = await client.call<{ runId: string }>('POST', '/v1/runs', { workflowId: 'admin-chat' });
    await waitStatus(client, runId, 'waiting-approval', UI_WAIT_MS);

    const page = await signIn(context, base, TEST_KEYS.t1);
    // At 1280 px the list breaks no word mid-word and keeps an age on one line.
    const row = page.locator(`tr[data-run-id="${runId}"]`);
    await row.waitFor({ timeout: UI_WAIT_MS });
    const [badge, age, asked] = await Promise.all(
      ['[data-testid=asked] .badge', 'td.age', '[data-testid=asked]'].map((css) =>
        row.locator(css).evaluate(measureText),
      ),
    );
    const layout = {
      badgeText: badge!.text,
      badgeLines: badge!.lines,
      ageLines: age!.lines,
      ageWrap: age!.whiteSpace,
      askedWrap: asked!.overflowWrap,
    };
    expect(layout).toEqual({
      badgeText: 'conversation.exchange',
      badgeLines: 1,
      ageLines: 1,
      ageWrap: 'nowrap',
      askedWrap: 'break-word',
    });
    await page.screenshot({ path: resolve(SHOTS, `pending-conversation-${mode}.png`), fullPage: true });
    await page.goto(`${base}/admin#/runs/${runId}/interrupts/chat`);
    const transcript = page.locator('[data-testid=transcript]');
    const agent = (text: string) => transcript.locator('li[data-role=agent]', { hasText: text });
    await agent('Hello! What shall we plan?').waitFor({ timeout: UI_WAIT_MS });
    await page.locator('[data-testid=live-indicator]', { hasText: 'live' }).waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator('[data-testid=conversation-status]').textContent()).toBe('open');
    // Counts the moments a reply shows while still streaming (before its turn is recorded).
    await page.evaluate(`(() => {
      window.streamedBubbles = 0;
      new MutationObserver(() => {
        if (document.querySelector('[data-testid=transcript] li.turn-streaming')) window.streamedBubbles++;
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);

    for (const [turn, reply] of [
      ['A trip to Lisbon', 'Noted: Lisbon. I will look at flights and hotels for you.'],
      ['For three days', 'Three days it is.'],
    ] as const) {
      await page.locator('#turn-input').fill(turn);
      await page.locator('[data-testid=send-turn]').click();
      await transcript.locator('li[data-role=user]', { hasText: turn }).waitFor({ timeout: UI_WAIT_MS });
      await agent(reply).waitFor({ timeout: UI_WAIT_MS });
    }
    expect(await page.evaluate('window.streamedBubbles')).toBeGreaterThan(0);
    // No reply is left half-streamed once its turn is recorded.
    await transcript.locator('li.turn-streaming').first().waitFor({ state: 'detached', timeout: UI_WAIT_MS });
    await page.screenshot({ path: resolve(SHOTS, `conversation-${mode}.png`), fullPage: true });

    await page.locator('[data-testid=close-conversation]').click();
    await page
      .locator('[data-testid=conversation-status]', { hasText: 'closed' })
      .waitFor({ timeout: UI_WAIT_MS });
    await page.locator('[data-testid=run-status]', { hasText: 'completed' }).waitFor({ timeout: UI_WAIT_MS });
    await page.screenshot({ path: resolve(SHOTS, `conversation-closed-${mode}.png`), fullPage: true });

    // The transcript the page showed is the one the host recorded.
    const { conversations } = await client.call<{
      conversations: { conversationId: string; nodeId: string; status: string }[];
    }>('GET', `/v1/runs/${runId}/conversations`);
    expect(conversations).toEqual([expect.objectContaining({ nodeId: 'chat', status: 'closed' })]);
    const { turns } = await client.call<{ turns: { role: string; content: unknown }[] }>(
      'GET',
      `/v1/runs/${runId}/conversations/${encodeURIComponent(conversations[0]!.conversationId)}`,
    );
    expect(turns.filter((t) => t.role !== 'system').map((t) => [t.role, t.content])).toEqual([
      ['agent', 'Hello! What shall we plan?'],
      ['user', 'A trip to Lisbon'],
      ['agent', 'Noted: Lisbon. I will look at flights and hotels for you.'],
      ['user', 'For three days'],
      ['agent', 'Three days it is.'],
    ]);
    const shown = await transcript.locator('li[data-role=user], li[data-role=agent]').allTextContents();
    expect(shown).toHaveLength(5);
    await page.close();
  });
});

/** The parts of the DOM {@link measureText} reads (the project's TypeScript has no DOM types). */
interface MeasuredElement {
  readonly textContent: string | null;
  readonly ownerDocument: {
    createRange(): {
      selectNodeContents(node: unknown): void;
      getClientRects(): ArrayLike<{ readonly top: number }>;
    };
    readonly defaultView: {
      getComputedStyle(el: unknown): { readonly whiteSpace: string; readonly overflowWrap: string };
    };
  };
}

/** In the page: an element's text, on how many lines it is drawn, and how it may wrap. */
function measureText(el: MeasuredElement): {
  text: string | null;
  lines: number;
  whiteSpace: string;
  overflowWrap: string;
} {
  const range = el.ownerDocument.createRange();
  range.selectNodeContents(el);
  const style = el.ownerDocument.defaultView.getComputedStyle(el);
  return {
    text: el.textContent,
    lines: new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size,
    whiteSpace: style.whiteSpace,
    overflowWrap: style.overflowWrap,
  };
}
