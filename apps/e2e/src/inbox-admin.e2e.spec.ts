import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { OpenWopClient } from '@openwop/sdk';
import { REPO_ROOT, waitFor } from '@openwop/testing';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { query } from './e2e-kit';
import { MODES, type HostUnderTest } from './host-matrix';

// The inbox on the operator page (ADR 0035) in headless Chromium on a 390-px-wide phone, both
// modes: the list says who holds each claim, a Claim button takes an unclaimed item, an item
// someone else holds opens with a warning naming them, the holder releases from the item's page,
// and the assignee filter in the hash narrows the list; an item's page shows a claim someone else
// takes or gives back as it happens (the run's event stream). Screenshots land in test-output/inbox/.

const SHOTS = resolve(REPO_ROOT, 'test-output/inbox');
const UI_WAIT_MS = 30_000;
const SCOPES = [
  'manifest:read',
  'manifest:write',
  'runs:create',
  'runs:read',
  'runs:cancel',
  'approvals:respond',
];
const KEYS = { alice: 'inboxui_alice_' + 'a'.repeat(24), bob: 'inboxui_bob_' + 'b'.repeat(24) };
const API_KEYS = JSON.stringify([
  { key: KEYS.alice, scopes: SCOPES, tenant: 't1', id: 'key-alice', principal: 'alice' },
  { key: KEYS.bob, scopes: SCOPES, tenant: 't1', id: 'key-bob', principal: 'bob' },
]);

describe.each(Object.keys(MODES) as (keyof typeof MODES)[])(
  'the inbox on the operator page, %s mode',
  (mode) => {
    let hut: HostUnderTest;
    let base: string;
    let alice: OpenWopClient;
    let browser: Browser;
    let phone: BrowserContext;
    const pageErrors: string[] = [];
    const workflowId = `inbox-ui-${mode}`;

    beforeAll(async () => {
      const executablePath = execFileSync('bash', [resolve(REPO_ROOT, 'tools/browser/ensure-chromium.sh')], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }).trim();
      mkdirSync(SHOTS, { recursive: true });
      hut = await MODES[mode]({ WOP_API_KEYS: API_KEYS });
      base = hut.host.gateways[0]!;
      alice = new OpenWopClient({ baseUrl: base, apiKey: KEYS.alice });
      await alice.call('POST', '/v1/workflows', {
        id: workflowId,
        name: workflowId,
        version: '1.0.0',
        nodes: [
          {
            id: 'gate',
            typeId: 'core.approvalGate',
            config: {
              title: 'Ship the release?',
              actions: ['accept', 'reject'],
              timeoutMs: 600_000,
              approversList: ['alice', 'bob'],
            },
          },
          { id: 'after', typeId: 'core.noop', config: {} },
        ],
        edges: [{ id: 'e1', sourceNodeId: 'gate', targetNodeId: 'after' }],
        triggers: [],
        variables: [],
        metadata: {},
        settings: {},
      });
      browser = await chromium.launch({ executablePath });
      phone = await browser.newContext({
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 2,
        isMobile: true,
        hasTouch: true,
      });
      phone.on('page', (p) => p.on('pageerror', (e) => pageErrors.push(e.message)));
    });
    afterAll(async () => {
      await browser?.close();
      await hut?.stop();
    });
    afterEach(() => {
      expect(pageErrors.splice(0)).toEqual([]);
    });

    async function waiting(): Promise<string> {
      const { runId } = await alice.createRun({ workflowId });
      await waitFor(
        async () =>
          (
            await query(
              hut.db.url,
              `SELECT 1 FROM pending_interrupts p JOIN interrupts i USING (interrupt_id) WHERE p.run_id = $1 AND i.status = 'pending'`,
              [runId],
            )
          ).length === 1,
        { timeoutMs: UI_WAIT_MS, intervalMs: 100, what: `run ${runId} waiting at its gate` },
      );
      return runId;
    }

    async function signIn(key: string): Promise<Page> {
      const page = await phone.newPage();
      await page.goto(`${base}/admin`);
      await page.locator('#api-key').fill(key);
      await page.locator('[data-testid=sign-in] button[type=submit]').click();
      await page
        .locator('[data-testid=pending-table], [data-state=empty]')
        .first()
        .waitFor({ timeout: UI_WAIT_MS });
      return page;
    }

    it('shows who holds each claim, claims from the list, warns on an item someone else holds, releases, and filters by assignee', async () => {
      const held = await waiting();
      const free = await waiting();
      const claimed = await fetch(`${base}/v1/runs/${held}/interrupts/gate:claim`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEYS.alice}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(claimed.status).toBe(200);

      const page = await signIn(KEYS.bob);
      const heldRow = page.locator(`tr[data-run-id="${held}"]`);
      const freeRow = page.locator(`tr[data-run-id="${free}"]`);
      await heldRow.waitFor({ timeout: UI_WAIT_MS });
      expect(await heldRow.locator('[data-testid=claimed-by]').textContent()).toContain('alice');
      expect(await heldRow.locator('[data-testid=claim-button]').count()).toBe(0);

      await freeRow.locator('[data-testid=claim-button]').click();
      await waitFor(
        async () => ((await freeRow.locator('[data-testid=claimed-by]').textContent()) ?? '').includes('bob'),
        { timeoutMs: UI_WAIT_MS, what: 'the list shows bob holding the claim' },
      );
      const { scrollWidth, innerWidth } = await page.evaluate<{ scrollWidth: number; innerWidth: number }>(
        '({ scrollWidth: document.scrollingElement.scrollWidth, innerWidth: window.innerWidth })',
      );
      expect(innerWidth).toBe(390);
      expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
      await page.screenshot({ path: resolve(SHOTS, `inbox-phone-${mode}.png`), fullPage: true });

      // An item alice holds opens with a warning naming her.
      await page.goto(`${base}/admin#/runs/${encodeURIComponent(held)}/interrupts/gate`);
      const warning = page.locator('[data-testid=claim-warning]');
      await warning.waitFor({ timeout: UI_WAIT_MS });
      expect(await warning.textContent()).toContain('alice is working on this');
      await page.screenshot({ path: resolve(SHOTS, `claimed-elsewhere-phone-${mode}.png`), fullPage: true });
      // Bob answers anyway: it goes through, and the answer says whose claim it crossed.
      await page.getByRole('button', { name: 'Accept', exact: true }).click();
      const crossed = page.locator('[data-testid=crossed-claim]');
      await crossed.waitFor({ timeout: UI_WAIT_MS });
      expect(await crossed.textContent()).toContain('alice held a claim on this');
      expect(await page.locator('[data-testid=resolve-result]').getAttribute('data-status')).toBe('resolved');

      // Bob's own item: he holds it and releases it.
      await page.goto(`${base}/admin#/runs/${encodeURIComponent(free)}/interrupts/gate`);
      await page
        .locator('[data-testid=claim-state]', { hasText: 'You hold the claim' })
        .waitFor({ timeout: UI_WAIT_MS });
      await page.locator('[data-testid=release-button]').click();
      await page
        .locator('[data-testid=claim-state]', { hasText: 'Nobody has claimed this yet.' })
        .waitFor({ timeout: UI_WAIT_MS });
      const [row] = await query<{ claimed_by: string | null }>(
        hut.db.url,
        'SELECT claimed_by FROM interrupts WHERE run_id = $1',
        [free],
      );
      expect(row!.claimed_by).toBeNull();

      // The assignee filter in the hash narrows the list to bob's claim (alice's item was answered).
      expect(
        (
          await fetch(`${base}/v1/runs/${free}/interrupts/gate:claim`, {
            method: 'POST',
            headers: { authorization: `Bearer ${KEYS.bob}`, 'content-type': 'application/json' },
            body: '{}',
          })
        ).status,
      ).toBe(200);
      const third = await waiting();
      await page.goto(`${base}/admin#/?assignee=bob`);
      await freeRow.waitFor({ timeout: UI_WAIT_MS });
      await page.locator(`tr[data-run-id="${third}"]`).waitFor({ state: 'detached', timeout: UI_WAIT_MS });
      await waitFor(async () => (await page.locator('tr[data-run-id]').count()) === 1, {
        timeoutMs: UI_WAIT_MS,
        what: 'only the claimed item listed',
      });
      expect(await page.locator('#assignee-filter').inputValue()).toBe('bob');
      await page.close();
    });

    it("an item's page shows a claim someone else takes and gives back as it happens, without a reload", async () => {
      const runId = await waiting();
      const page = await signIn(KEYS.bob);
      await page.goto(`${base}/admin#/runs/${encodeURIComponent(runId)}/interrupts/gate`);
      await page
        .locator('[data-testid=claim-state]', { hasText: 'Nobody has claimed this yet.' })
        .waitFor({ timeout: UI_WAIT_MS });
      const byAlice = (action: 'claim' | 'release') =>
        fetch(`${base}/v1/runs/${runId}/interrupts/gate:${action}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEYS.alice}`, 'content-type': 'application/json' },
          body: '{}',
        });
      expect((await byAlice('claim')).status).toBe(200);
      const warning = page.locator('[data-testid=claim-warning]');
      await warning.waitFor({ timeout: UI_WAIT_MS });
      expect(await warning.textContent()).toContain('alice is working on this');
      await page.screenshot({ path: resolve(SHOTS, `claimed-live-phone-${mode}.png`), fullPage: true });
      expect((await byAlice('release')).status).toBe(200);
      await page
        .locator('[data-testid=claim-state]', { hasText: 'Nobody has claimed this yet.' })
        .waitFor({ timeout: UI_WAIT_MS });
      expect(await warning.count()).toBe(0);
      await page.close();
    });
  },
);
