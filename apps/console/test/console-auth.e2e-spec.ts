import type { Browser, Page } from 'playwright-core';
import {
  describeWithBrowser,
  freePort,
  launchBrowser,
  RunningArbiter,
  seriousViolations,
  shot,
  startArbiter,
} from './e2e-support';

/**
 * The console against a platform with the control plane's authorization on (tokens from identity
 * verified through its JWKS, policies from the roles, the hub's negotiate needing a token), the execution
 * router in Shadow mode (the running canary is the candidate) and a license whose features leave out
 * the canary page. Operators: the seeded administrator (role Admin) and carol, created by him with the
 * role Approver.
 */
const ADMIN = { userName: 'admin', password: 'admin-password-for-tests' };
const CAROL = { userName: 'carol', password: 'carol-approves-2026' };
const WF = 'pricing';

jest.setTimeout(60_000);

describeWithBrowser(
  'operator console with authorization on, shadow mode and a license without canary',
  () => {
    let arbiter: RunningArbiter;
    let browser: Browser;
    let a: Page;
    let c: Page;
    const tokens: Record<string, string> = {};

    /** identity answers `{ isSuccess, result }` */
    const unwrap = (body: any) => (body && 'result' in body && 'isSuccess' in body ? body.result : body);

    async function call(service: 'identity' | 'control-plane', path: string, token: string, body?: unknown) {
      const base = service === 'identity' ? arbiter.identityUrl : arbiter.controlPlaneUrl;
      const response = await fetch(`${base}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: unwrap(await response.json().catch(() => undefined)) };
    }
    async function token(who: { userName: string; password: string }): Promise<string> {
      const r = await fetch(`${arbiter.identityUrl}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(who),
      });
      expect(r.status).toBe(200);
      return unwrap(await r.json()).AccessToken;
    }

    async function signIn(page: Page, who: { userName: string; password: string }) {
      await page.goto(arbiter.consoleUrl);
      await page.locator('input[name=userName]').fill(who.userName);
      await page.locator('input[name=password]').fill(who.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByTestId('current-user').filter({ hasText: who.userName }).waitFor();
      // the hub's negotiate needs the token here: connected means the console sent it
      await page.getByTestId('hub-state').filter({ hasText: 'live: connected' }).waitFor();
    }

    beforeAll(async () => {
      const identityPort = await freePort();
      arbiter = await startArbiter({
        ARBITER_IDENTITY_PORT: String(identityPort),
        RuleControlPlane__RequireApproval: 'true',
        ControlPlaneAuth__DisableAuthorization: 'false',
        ControlPlaneAuth__JwksUrl: `http://127.0.0.1:${identityPort}/.well-known/jwks.json`,
        ControlPlaneAuth__Issuer: 'arbiter-identity',
        ControlPlaneAuth__Audience: 'arbiter',
        RuleEngineOptions__ExecutionRouter__Mode: 'Shadow',
        ControlPlaneRuntimeInfo__AllowedFeatures: 'cp.publish,api.validate',
      });
      tokens.admin = await token(ADMIN);
      // the administrator makes an Approver role and a checker who holds it (identity's public API)
      const role = await call('identity', '/api/v1/auth/create-role', tokens.admin, {
        name: 'Approver',
        permissions: ['cp.approver', 'cp.viewer'],
      });
      expect([201, 409]).toContain(role.status);
      const user = await call('identity', '/api/v1/users', tokens.admin, { ...CAROL, roles: ['Approver'] });
      expect(user.status).toBe(201);
      tokens.carol = await token(CAROL);

      browser = await launchBrowser();
      a = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
      c = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
      for (const page of [a, c]) page.setDefaultTimeout(15_000);
    }, 150_000);

    afterAll(async () => {
      await browser?.close().catch(() => undefined);
      await arbiter?.stop();
    });

    it('refuses the control plane without a token, and the console sends it: the pages work signed in', async () => {
      const anonymous = await fetch(`${arbiter.consoleUrl}/svc/control-plane/api/v1/control-plane/rulesets`, {
        headers: { 'x-tenant-id': 'default' },
      });
      expect(anonymous.status).toBe(401);
      await signIn(a, ADMIN);
      await signIn(c, CAROL);
      await a.goto(`${arbiter.consoleUrl}/#/rulesets`);
      await a.getByTestId('ruleset-list').waitFor();
    });

    it('hides the canary page the license does not list, and says so on a direct link', async () => {
      const nav = a.getByRole('navigation', { name: 'Pages' });
      await nav.getByRole('link', { name: 'Audit' }).waitFor();
      expect(await nav.getByRole('link', { name: 'Rollout' }).count()).toBe(0);
      await a.goto(`${arbiter.consoleUrl}/#/rollout/${WF}`);
      await a.getByTestId('page-not-licensed').filter({ hasText: 'cp.publish, api.validate' }).waitFor();
    });

    it('maker-checker with tokens: the token decides who acts, self-approval refused, the Approver approves', async () => {
      await a.goto(`${arbiter.consoleUrl}/#/rulesets`);
      await a.getByLabel('New rule set').fill(WF);
      await a.getByRole('button', { name: 'Open' }).click();
      await a.getByTestId('ruleset-editor').fill(
        JSON.stringify({
          type: 'rules',
          rules: [
            { id: 'limit', name: 'Limit', condition: 'income > 0', output: { approved: true, limit: 1000 } },
          ],
        }),
      );
      await a.getByLabel('Change description').fill('pricing v1');
      await a.getByRole('button', { name: 'Save new version' }).click();
      await a.getByTestId('ruleset-message').filter({ hasText: 'Saved version 1' }).waitFor();
      await a.getByRole('button', { name: 'Submit for approval' }).click();
      await a.getByTestId('ruleset-message').filter({ hasText: 'submitted for approval' }).waitFor();

      await a.goto(`${arbiter.consoleUrl}/#/approvals`);
      const own = a.getByTestId(`pending-${WF}@1`);
      await own.getByRole('button', { name: 'Approve' }).click();
      await expect(own.getByRole('status').textContent()).resolves.toContain('SELF_APPROVAL');

      await c.goto(`${arbiter.consoleUrl}/#/approvals`);
      const row = c.getByTestId(`pending-${WF}@1`);
      await row.getByLabel(`Reason for ${WF}@1`).fill('checked with a token');
      await row.getByRole('button', { name: 'Approve' }).click();
      await row.waitFor({ state: 'detached' });
      await own.waitFor({ state: 'detached' });
      const versions = await call(
        'control-plane',
        `/api/v1/control-plane/rulesets/${WF}/versions`,
        tokens.admin,
      );
      expect(versions.body.versions[0]).toMatchObject({ submittedBy: 'admin', approvedBy: 'carol' });
      expect(await seriousViolations(c)).toEqual([]);
    });

    it('shadow: executions answered by the active version show the canary candidate’s differences by severity', async () => {
      const admin = (path: string, body?: unknown) => call('control-plane', path, tokens.admin, body);
      const carol = (path: string, body?: unknown) => call('control-plane', path, tokens.carol, body);
      expect((await admin(`/api/v1/control-plane/rulesets/${WF}/1/activate`, {})).status).toBe(200);
      // v2: the boolean flips (high) and the limit moves by 2 % (medium)
      const saved = await admin(`/api/v1/control-plane/rulesets/${WF}`, {
        detail: 'pricing v2',
        ruleSet: {
          type: 'rules',
          rules: [
            { id: 'limit', name: 'Limit', condition: 'income > 0', output: { approved: false, limit: 1020 } },
          ],
        },
      });
      expect(saved.status).toBe(200);
      expect((await admin(`/api/v1/control-plane/approvals/${WF}/2/submit`, { detail: 'v2' })).status).toBe(
        200,
      );
      expect((await carol(`/api/v1/control-plane/approvals/${WF}/2/approve`, { detail: 'ok' })).status).toBe(
        200,
      );
      // the candidate of Shadow mode: the running canary
      expect(
        (await carol(`/api/v1/control-plane/canary/${WF}/2/start`, { targetPercentage: 10 })).status,
      ).toBe(201);
      for (let i = 0; i < 5; i++) {
        const r = await admin(`/api/v1/rule-engine/execute/${WF}`, { facts: { income: 10 + i } });
        expect(r.status).toBe(200);
        expect(r.body.outputs).toMatchObject({ approved: true, limit: 1000 });
      }

      await a.goto(`${arbiter.consoleUrl}/#/audit/${WF}`);
      await a.getByTestId('audit-verification').filter({ hasText: 'Chain verified' }).waitFor();
      await a.getByRole('tab', { name: 'Executions and shadow' }).click();
      const entries = a.getByTestId('execution-entry');
      await entries.nth(4).waitFor();
      const first = entries.first();
      await expect(first.getByTestId('shadow-severity').textContent()).resolves.toBe('v2: high');
      await expect(first.textContent()).resolves.toContain('approved true → false');
      await expect(first.textContent()).resolves.toContain('limit 1000 → 1020');
      // none green, medium yellow, high red (the badges' colours as drawn)
      const colour = (text: string) =>
        first
          .getByText(text, { exact: true })
          .evaluate(
            (el) =>
              (globalThis as any).getComputedStyle(el.closest('.mantine-Badge-root'))
                .backgroundColor as string,
          );
      expect(await colour('high')).toMatch(/^rgb\((2[0-9]{2}|1[5-9][0-9]), \d{1,2}, \d{1,2}\)$/);
      expect(await colour('medium')).toMatch(/^rgb\(2[0-9]{2}, (1[5-9][0-9]|2[0-9]{2}), \d{1,2}\)$/);
      await a.getByLabel('Shadow difference').selectOption('high');
      expect(await entries.count()).toBe(5);
      await shot(a, 'audit-shadow.png');
      await a.getByLabel('Shadow difference').selectOption('none');
      await a.getByText('No executions recorded match the filters.').waitFor();
      expect(await seriousViolations(a)).toEqual([]);
    });
  },
);
