import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  describeWithBrowser,
  launchBrowser,
  RunningArbiter,
  seriousViolations,
  shot,
  startArbiter,
} from './e2e-support';

/**
 * The built console in Debian's Chromium against the platform as `npm start` runs it (`arbiter start`
 * from the build, all services and the console in one process; authorization off, the default): two
 * operators in two browser contexts, maker-checker with a live second page, a flow graph drawn, a diff,
 * a dry-run, a canary with per-arm figures promoted live, the signed audit verified, and decision tables
 * (grid, validation, analysis, autocomplete, versions, JSON/XLSX/DMN, a 1,000-row table). axe-core on
 * every page. `console-auth.e2e-spec.ts` runs the console with the control plane's authorization on.
 */
const ADMIN = { userName: 'admin', password: 'admin-password-for-tests' };
const BOB = { userName: 'bob', password: 'bob-the-checker-2026' };
const LICENSE_ADMIN_KEY = 'console-e2e-license-admin';

jest.setTimeout(60_000);

describeWithBrowser('operator console in Chromium', () => {
  let arbiter: RunningArbiter;
  let consoleUrl = '';
  let identityUrl = '';
  let browser: Browser;
  let userDataDir: string;
  let admin: BrowserContext;
  let checker: BrowserContext;
  let a: Page;
  let b: Page;
  const firstPage: number[] = [];

  beforeAll(async () => {
    arbiter = await startArbiter({
      RuleControlPlane__RequireApproval: 'true',
      // the silent-refresh test moves the page's clock, not identity's: identity must take a refresh at
      // any point of the 15-minute token's life (default 0: only once it has expired, the spec's rule)
      IdentityAuth__RefreshEarlySeconds: '900',
      // the license test issues a key through identity's admin route
      LicenseServer__AdminApiKey: LICENSE_ADMIN_KEY,
    });
    consoleUrl = arbiter.consoleUrl;
    identityUrl = arbiter.identityUrl;

    // the second operator registers through identity's public API (self-registration is open in Testing)
    const registered = await fetch(`${identityUrl}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(BOB),
    });
    expect(registered.status).toBe(201);

    // Playwright gives the browser a fresh profile of its own; this folder holds the test's files
    userDataDir = mkdtempSync(join(tmpdir(), 'arbiter-console-e2e-'));
    browser = await launchBrowser();
    admin = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
    checker = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    a = await admin.newPage();
    b = await checker.newPage();
    for (const page of [a, b]) page.setDefaultTimeout(15_000);
  }, 150_000);

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
    await arbiter?.stop();
  });

  async function signIn(page: Page, who: { userName: string; password: string }) {
    const started = Date.now();
    await page.goto(consoleUrl);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    firstPage.push(Date.now() - started);
    await page.locator('input[name=userName]').fill(who.userName);
    await page.locator('input[name=password]').fill(who.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('current-user').filter({ hasText: who.userName }).waitFor();
    await page.getByTestId('hub-state').filter({ hasText: 'live: connected' }).waitFor();
  }

  it('signs in through identity, shows the license state, refuses a wrong password with the server message', async () => {
    await a.goto(consoleUrl);
    await a.getByRole('button', { name: 'Sign in' }).waitFor();
    await expect(a.getByTestId('license-state').textContent()).resolves.toMatch(/license (valid|invalid)/);
    expect(await seriousViolations(a)).toEqual([]);
    await shot(a, 'login.png');

    await a.locator('input[name=userName]').fill('admin');
    await a.locator('input[name=password]').fill('not-the-password');
    await a.getByRole('button', { name: 'Sign in' }).click();
    await expect(a.getByRole('alert').textContent()).resolves.toContain('INVALID_CREDENTIALS');

    await signIn(a, ADMIN);
    await signIn(b, BOB);
    // the session survives a reload (sessionStorage) and the console still talks to the services
    await a.reload();
    await a.getByTestId('current-user').filter({ hasText: 'admin' }).waitFor();
    // first page interactive on `npm start` locally (target < 1 s; generous under CI load)
    expect(Math.min(...firstPage)).toBeLessThan(5_000);
    console.log(`first page interactive: ${firstPage.map((t) => `${t} ms`).join(', ')}`);
  });

  it('maker-checker: admin saves and submits, self-approval is refused, bob approves and both pages update live', async () => {
    await b.goto(`${consoleUrl}/#/approvals`);
    await b.getByTestId('pending-approvals').waitFor();
    expect(await seriousViolations(b)).toEqual([]);

    await a.goto(`${consoleUrl}/#/rulesets`);
    await a.getByLabel('New rule set').fill('loan-approval');
    await a.getByRole('button', { name: 'Open' }).click();
    await a.getByLabel('Change description').fill('first rules');
    await a.getByRole('button', { name: 'Validate' }).click();
    await a.getByTestId('ruleset-message').filter({ hasText: 'Valid (rules)' }).waitFor();
    await a.getByRole('button', { name: 'Save new version' }).click();
    await a.getByTestId('ruleset-message').filter({ hasText: 'Saved version 1' }).waitFor();
    await a.getByRole('button', { name: 'Submit for approval' }).click();
    await a.getByTestId('ruleset-message').filter({ hasText: 'submitted for approval' }).waitFor();
    expect(await seriousViolations(a)).toEqual([]);
    await shot(a, 'rule-sets.png');

    // bob's open approvals page shows the submission without a reload (SignalR hub through the proxy)
    const row = b.getByTestId('pending-loan-approval@1');
    await row.waitFor({ timeout: 15_000 });
    await expect(row.textContent()).resolves.toContain('admin');

    // the maker cannot approve their own version: the server's message is shown
    await a.goto(`${consoleUrl}/#/approvals`);
    const own = a.getByTestId('pending-loan-approval@1');
    await own.getByRole('button', { name: 'Approve' }).click();
    await expect(own.getByRole('status').textContent()).resolves.toContain('SELF_APPROVAL');
    await shot(a, 'approvals-self-approval.png');

    await row.getByLabel('Reason for loan-approval@1').fill('four eyes: looks right');
    await shot(b, 'approvals.png');
    await row.getByRole('button', { name: 'Approve' }).click();
    await row.waitFor({ state: 'detached' });
    // the maker's page drops the row live and names who approved
    await own.waitFor({ state: 'detached', timeout: 15_000 });
    await a.getByTestId('last-event').filter({ hasText: 'bob' }).waitFor({ timeout: 15_000 });

    const versions = await fetch(
      `${consoleUrl}/svc/control-plane/api/v1/control-plane/rulesets/loan-approval/versions`,
    ).then((r) => r.json() as Promise<any>);
    expect(versions.versions[0]).toMatchObject({ version: 1, submittedBy: 'admin', approvedBy: 'bob' });
  });

  it('rule sets: a second version diffed side by side, a flow graph drawn and dry-run with traces', async () => {
    await a.goto(`${consoleUrl}/#/rulesets`);
    await a.getByRole('button', { name: 'loan-approval' }).click();
    // the approved version is activated by its maker (activation is the approver policy's, not four-eyes)
    await a.getByRole('button', { name: 'Activate v1' }).click();
    await a.getByTestId('ruleset-message').filter({ hasText: 'Version 1 is active' }).waitFor();
    await a.getByTestId('active-loan-approval').filter({ hasText: /^1$/ }).waitFor();
    const editor = a.getByTestId('ruleset-editor');
    await expect(editor.inputValue()).resolves.toContain('"adult"');
    await editor.fill(
      JSON.stringify({
        type: 'rules',
        rules: [{ id: 'adult', name: 'Adult', condition: 'age >= 21', output: { eligible: true } }],
      }),
    );
    await a.getByRole('button', { name: 'Save new version' }).click();
    await a.getByTestId('ruleset-message').filter({ hasText: 'Saved version 2' }).waitFor();
    await a.getByRole('tab', { name: 'Diff' }).click();
    await a.getByTestId('diff-summary').filter({ hasText: 'modified 1' }).waitFor();
    await a.getByTestId('side-by-side-diff').filter({ hasText: '>= 21' }).waitFor();
    expect(await seriousViolations(a)).toEqual([]);
    await shot(a, 'rule-set-diff.png');

    // v2 submitted and rejected by the checker: a reason is required (the server's 400), then recorded
    await a.getByRole('tab', { name: 'Document' }).click();
    await a.getByRole('button', { name: 'Submit for approval' }).click();
    await a.getByTestId('ruleset-message').filter({ hasText: 'Version 2 submitted' }).waitFor();
    await b.goto(`${consoleUrl}/#/approvals`);
    const pending = b.getByTestId('pending-loan-approval@2');
    await pending.getByRole('button', { name: 'Reject' }).click();
    await expect(pending.getByRole('status').textContent()).resolves.toContain('REJECTION_REASON_REQUIRED');
    await pending.getByLabel('Reason for loan-approval@2').fill('keep 18 as the threshold');
    await pending.getByRole('button', { name: 'Reject' }).click();
    await pending.waitFor({ state: 'detached' });
    await a.getByRole('tab', { name: /Versions/ }).click();
    await a
      .getByTestId('version-list')
      .filter({ hasText: 'bob: keep 18 as the threshold' })
      .waitFor({ timeout: 15_000 });

    // the checker watches the rule-set list while the maker saves a new rule set
    await b.goto(`${consoleUrl}/#/rulesets`);
    await b.getByTestId('ruleset-list').waitFor();
    await a.getByLabel('New rule set').fill('onboarding-flow');
    await a.getByRole('button', { name: 'Open' }).click();
    await a.getByTestId('ruleset-editor').fill(
      JSON.stringify(
        {
          type: 'flow-graph',
          schemaVersion: 1,
          start: 'adult',
          nodes: [
            {
              id: 'adult',
              kind: 'condition',
              config: { expression: 'age >= 18' },
              edges: [
                { kind: 'on-true', target: 'welcome' },
                { kind: 'on-false', target: 'deny' },
              ],
            },
            {
              id: 'welcome',
              kind: 'feel-expression',
              config: { expression: '"hello " + name', outputVariable: 'greeting' },
            },
            {
              id: 'deny',
              kind: 'feel-expression',
              config: { expression: '"too young"', outputVariable: 'greeting' },
            },
          ],
        },
        null,
        2,
      ),
    );
    await a.getByTestId('flow-graph').waitFor();
    await a.locator('.react-flow__node').nth(2).waitFor();
    expect(await a.locator('.react-flow__node').count()).toBe(3);
    // React Flow draws the edges after it has measured the nodes: wait for them, then count
    await a.locator('.react-flow__edge').nth(1).waitFor();
    expect(await a.locator('.react-flow__edge').count()).toBe(2);
    await a.getByRole('button', { name: 'Save new version' }).click();
    await a.getByTestId('ruleset-message').filter({ hasText: 'Saved version 1' }).waitFor();
    await b.getByTestId('ruleset-list').getByRole('button', { name: 'onboarding-flow' }).waitFor();
    await a.evaluate(() => (globalThis as any).scrollTo(0, 0));
    await shot(a, 'flow-graph.png');

    await a.getByRole('tab', { name: 'Dry-run' }).click();
    await a.getByTestId('facts-editor').fill('{ "age": 30, "name": "Ada" }');
    await a.getByRole('button', { name: 'Dry-run' }).click();
    const result = a.getByTestId('dry-run-result');
    await result.waitFor();
    await expect(result.textContent()).resolves.toContain('hello Ada');
    await expect(result.textContent()).resolves.toContain('adult');
    expect(await seriousViolations(a)).toEqual([]);
    await shot(a, 'dry-run.png');
  });

  it('decision table: edited in the grid, validated, saved, evaluated, exported and re-imported', async () => {
    await a.goto(`${consoleUrl}/#/tables`);
    await a.getByLabel('New table').fill('Risk');
    await a.getByRole('button', { name: 'Create' }).click();
    await a.getByTestId('table-grid').waitFor();

    await a.getByRole('button', { name: 'Add row' }).click();
    await a.getByRole('textbox', { name: 'age of row r2', exact: true }).fill('< 18');
    await a.getByRole('textbox', { name: 'risk of row r2', exact: true }).fill('minor');
    await a.getByLabel('Hit policy').selectOption('Unique');
    // as you type: each cell is checked by the service (debounced) and its message shown on the cell,
    // without pressing Validate; fixing the text clears it
    const ageR1 = a.getByRole('textbox', { name: 'age of row r1', exact: true });
    const cellError = async () => {
      await a.locator('input[aria-label="age of row r1"][aria-invalid="true"]').waitFor();
      const describedBy = (await ageR1.getAttribute('aria-describedby')) ?? '';
      const id = describedBy.split(' ').find((x) => x.endsWith('-error'));
      return (await a.locator(`[id="${id}"]`).textContent()) ?? '';
    };
    await ageR1.fill('');
    await ageR1.pressSequentially('>= (18', { delay: 30 });
    await expect(cellError()).resolves.toContain("Expected ')' at line 1, column 7");
    await ageR1.fill('');
    await ageR1.pressSequentially('> income', { delay: 30 });
    await expect(cellError()).resolves.toContain("Unknown name: 'income'");
    await shot(a, 'decision-table-feel-validation.png');
    await ageR1.fill('');
    await ageR1.pressSequentially('>= 18', { delay: 30 });
    await a.locator('input[aria-label="age of row r1"]:not([aria-invalid="true"])').waitFor();
    await a.waitForTimeout(400); // past the debounce: the valid answer has come back and stays clear
    expect(await ageR1.getAttribute('aria-invalid')).not.toBe('true');

    // a bad condition is reported on its cell by the service's validation
    await a.getByRole('textbox', { name: 'age of row r1', exact: true }).fill('>> 18');
    await a.getByRole('button', { name: 'Validate' }).click();
    await a.getByTestId('table-message').filter({ hasText: 'Invalid' }).waitFor();
    await a.getByRole('textbox', { name: 'age of row r1', exact: true }).fill('>= 18');
    await a.getByRole('button', { name: 'Validate' }).click();
    await a.getByTestId('table-message').filter({ hasText: 'The table is valid.' }).waitFor();
    await a.getByRole('button', { name: 'Save new version' }).click();
    await a.getByTestId('table-message').filter({ hasText: 'Saved version 2' }).waitFor();

    const evaluateWith = async (age: string) => {
      await a.getByRole('textbox', { name: 'age', exact: true }).fill(age);
      await a.getByRole('button', { name: 'Evaluate', exact: true }).click();
      return a.getByTestId('evaluate-result');
    };
    await (await evaluateWith('12')).filter({ hasText: '"risk":"minor"' }).waitFor();
    await (await evaluateWith('40')).filter({ hasText: '"risk":"low"' }).waitFor();
    expect(await seriousViolations(a)).toEqual([]);
    await shot(a, 'decision-table.png');

    const [download] = await Promise.all([
      a.waitForEvent('download'),
      a.getByRole('button', { name: 'Export JSON' }).click(),
    ]);
    const exported = JSON.parse(readFileSync((await download.path())!, 'utf8'));
    const table = Array.isArray(exported) ? exported[0] : exported;
    expect(table.name).toBe('Risk');
    expect(table.rows).toHaveLength(2);

    const file = join(userDataDir, 'risk-copy.json');
    writeFileSync(file, JSON.stringify([{ ...table, name: 'Risk copy', id: undefined }]));
    await a.locator('input[type=file]').setInputFiles(file);
    await a.getByTestId('import-message').filter({ hasText: 'Imported 1' }).waitFor();
    await a.getByTestId('table-list').getByRole('button', { name: 'Risk copy' }).click();
    await expect(a.getByRole('textbox', { name: 'risk of row r2', exact: true }).inputValue()).resolves.toBe(
      'minor',
    );
  });

  it('decision table: analysis on the grid, FEEL autocomplete, versions diffed, XLSX and DMN by upload', async () => {
    await a.getByTestId('table-list').getByRole('button', { name: 'Risk', exact: true }).click();
    await a.getByRole('textbox', { name: 'age of row r1', exact: true }).waitFor();
    // a third row overlapping the first, and a gap between 16 and 18
    await a.getByRole('button', { name: 'Add row' }).click();
    await a.getByRole('textbox', { name: 'age of row r3', exact: true }).fill('>= 65');
    await a.getByRole('textbox', { name: 'risk of row r3', exact: true }).fill('senior');
    await a.getByRole('textbox', { name: 'age of row r2', exact: true }).fill('< 16');
    await a.getByRole('button', { name: 'Save new version' }).click();
    await a.getByTestId('table-message').filter({ hasText: 'Saved version 3' }).waitFor();
    await a.getByRole('button', { name: 'Analyze' }).click();
    await a.getByTestId('table-message').filter({ hasText: '1 overlapping pair(s), 2 gap(s)' }).waitFor();
    await a.getByTestId('overlap-r3').filter({ hasText: 'overlaps r1' }).waitFor();
    await a.getByTestId('overlap-r1').filter({ hasText: 'overlaps r3' }).waitFor();
    const gaps = a.getByTestId('table-gaps');
    await expect(gaps.textContent()).resolves.toMatch(/No row matches age/);
    // the counter-example evaluated against the saved version: no row matches it
    await gaps
      .getByRole('button', { name: /^Evaluate/ })
      .first()
      .click();
    await a.getByTestId('evaluate-result').filter({ hasText: 'Matched rows: none' }).waitFor();
    expect(await seriousViolations(a)).toEqual([]);
    await shot(a, 'decision-table-analysis.png');

    // FEEL autocomplete from the service as you type: the column and the functions
    const cell = a.getByRole('textbox', { name: 'age of row r3', exact: true });
    await cell.fill('');
    await cell.pressSequentially('>= da', { delay: 20 });
    const option = a.getByRole('option', { name: /^date\(from\)/ });
    await option.waitFor();
    await option.click();
    await expect(cell.inputValue()).resolves.toBe('>= date(');
    await cell.fill('');
    await cell.pressSequentially('a', { delay: 20 });
    await a.getByRole('option', { name: /^age · variable/ }).waitFor();
    await shot(a, 'decision-table-autocomplete.png');
    await cell.fill('>= 65');
    await a.keyboard.press('Escape');

    await a.getByRole('tab', { name: 'Versions and diff' }).click();
    await a.getByTestId('table-versions').filter({ hasText: 'v3' }).waitFor();
    await a.getByRole('button', { name: 'Compare' }).click();
    const diff = a.getByTestId('table-diff');
    await diff.filter({ hasText: 'v2 → v3: 1 added, 0 removed, 1 modified' }).waitFor();
    await expect(diff.textContent()).resolves.toContain('+ r3');
    await expect(diff.textContent()).resolves.toContain('~ r2 inputConditions.age: "< 18" → "< 16"');
    expect(await seriousViolations(a)).toEqual([]);
    await shot(a, 'decision-table-diff.png');
    await a.getByRole('tab', { name: 'Grid' }).click();

    // XLSX: downloaded, uploaded again: the service reads it (same name: skipped as a duplicate)
    const [xlsx] = await Promise.all([
      a.waitForEvent('download'),
      a.getByRole('button', { name: 'Export XLSX' }).click(),
    ]);
    expect(xlsx.suggestedFilename()).toBe('Risk.xlsx');
    const xlsxFile = join(userDataDir, 'Risk.xlsx');
    await xlsx.saveAs(xlsxFile);
    expect(readFileSync(xlsxFile).subarray(0, 2).toString()).toBe('PK');
    await a.locator('input[type=file]').setInputFiles(xlsxFile);
    await a.getByTestId('import-message').filter({ hasText: 'Risk: skipped' }).waitFor();

    // DMN: downloaded, renamed, uploaded: a new table with the same rows
    const [dmn] = await Promise.all([
      a.waitForEvent('download'),
      a.getByRole('button', { name: 'Export DMN' }).click(),
    ]);
    const xml = readFileSync((await dmn.path())!, 'utf8');
    expect(xml).toContain('<decisionTable');
    const dmnFile = join(userDataDir, 'risk-dmn.dmn');
    writeFileSync(dmnFile, xml.replace(/name="Risk"/g, 'name="Risk DMN"'));
    await a.locator('input[type=file]').setInputFiles(dmnFile);
    await a.getByTestId('import-message').filter({ hasText: 'Imported 1' }).waitFor();
    await a.getByTestId('table-list').getByRole('button', { name: 'Risk DMN' }).click();
    await expect(a.getByRole('textbox', { name: 'risk of row r3', exact: true }).inputValue()).resolves.toBe(
      'senior',
    );
  });

  it('decision table: typing in a 1,000-row table stays fast (virtualised grid; latency printed)', async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({
      id: `r${i + 1}`,
      inputConditions: { age: `[${i}..${i + 1})` },
      outputs: { risk: `band ${i + 1}` },
    }));
    const created = await fetch(`${consoleUrl}/svc/decisions/api/v1/decision-tables`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tenant-id': 'default' },
      body: JSON.stringify({
        name: 'Bands',
        hitPolicy: 'First',
        inputColumns: [{ name: 'age', type: 'number' }],
        outputColumns: [{ name: 'risk', type: 'string' }],
        rows,
      }),
    });
    expect(created.status).toBe(201);
    await a.goto(`${consoleUrl}/#/tables`);
    await a.reload();
    await a.getByTestId('table-list').getByRole('button', { name: 'Bands' }).click();
    await a.getByRole('textbox', { name: 'risk of row r1', exact: true }).waitFor();
    // only a window of the rows is in the page
    const inDom = await a.getByTestId('table-grid').locator('tbody tr[data-index]').count();
    expect(inDom).toBeLessThan(60);
    await a.getByTestId('table-grid-scroller').evaluate((el) => (el.scrollTop = 499 * 46));
    const target = a.getByRole('textbox', { name: 'risk of row r500', exact: true });
    await target.waitFor();

    /** key down → the frame after the input event has been handled (what the operator sees) */
    const typingLatency = async (label: string, text: string): Promise<number[]> => {
      const input = a.getByRole('textbox', { name: label, exact: true });
      await input.click();
      await a.evaluate(() => {
        const g = globalThis as any;
        g.__latencies = [];
        if (g.__measuring) return;
        g.__measuring = true;
        let down = 0;
        g.document.addEventListener('keydown', () => (down = g.performance.now()), { capture: true });
        g.document.addEventListener(
          'input',
          () => {
            const started = down;
            g.requestAnimationFrame(() =>
              setTimeout(() => g.__latencies.push(g.performance.now() - started), 0),
            );
          },
          { capture: true },
        );
      });
      await a.keyboard.type(text, { delay: 40 });
      await a.waitForTimeout(100);
      return a.evaluate(() => (globalThis as any).__latencies as number[]);
    };
    const summary = (xs: number[]) => {
      const sorted = [...xs].sort((x, y) => x - y);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
      return { median: at(0.5), p95: at(0.95), max: sorted[sorted.length - 1] };
    };
    const output = summary(await typingLatency('risk of row r500', ' edited in place'));
    await expect(target.inputValue()).resolves.toBe('band 500 edited in place');
    const feel = summary(await typingLatency('age of row r500', ' or 700'));
    await expect(a.getByRole('textbox', { name: 'age of row r500', exact: true }).inputValue()).resolves.toBe(
      '[499..500) or 700',
    );
    const { loadavg } = await import('node:os');
    console.log(
      `typing latency in a 1,000-row table (key down → next frame; load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(
          ' ',
        )}): output cell median ${output.median.toFixed(1)} ms, p95 ${output.p95.toFixed(1)} ms, max ${output.max.toFixed(1)} ms; ` +
        `FEEL cell (autocomplete) median ${feel.median.toFixed(1)} ms, p95 ${feel.p95.toFixed(1)} ms, max ${feel.max.toFixed(1)} ms; ${inDom} of 1,000 rows in the DOM`,
    );
    // the target is 50 ms on an idle machine; the bound here only catches a grid that renders every row
    expect(output.median).toBeLessThan(250);
    expect(feel.median).toBeLessThan(250);
    await shot(a, 'decision-table-1000-rows.png');
  });

  it('event windows: a sliding window saved, then simulated: accepted and late events with their aggregates', async () => {
    await a.goto(`${consoleUrl}/#/event-windows`);
    await a.getByRole('button', { name: 'New event window' }).click();
    await a.getByRole('textbox', { name: 'Id', exact: true }).fill('failed-logins');
    await a.getByRole('textbox', { name: 'Name', exact: true }).fill('Failed logins');
    // a bad duration is the service's 400 naming the field
    await a.getByRole('textbox', { name: 'Window size' }).fill('ten minutes');
    await a.getByRole('button', { name: 'Save event window' }).click();
    await a.getByTestId('cep-message').filter({ hasText: 'INVALID_DURATION' }).waitFor();
    await a.getByRole('textbox', { name: 'Window size' }).fill('PT10M');
    await a.getByRole('button', { name: 'Save event window' }).click();
    await a.getByTestId('cep-message').filter({ hasText: 'Saved failed-logins (version 1)' }).waitFor();
    await a.getByTestId('cep-list').getByRole('button', { name: 'failed-logins' }).waitFor();
    await a.getByRole('button', { name: 'Simulate', exact: true }).click();
    const result = a.getByTestId('cep-result');
    await result.filter({ hasText: 'Processed 3, accepted 2, late 1' }).waitFor();
    await expect(result.textContent()).resolves.toContain('{"count":2,"max":3}');
    expect(await seriousViolations(a)).toEqual([]);
    await shot(a, 'event-windows.png');
  });

  it('scenarios: a plan generated for a table, run, its coverage and the statistics shown', async () => {
    await a.goto(`${consoleUrl}/#/scenarios`);
    await a.getByTestId('scenario-statistics').waitFor();
    await a.getByLabel('Decision table').selectOption({ label: 'Risk' });
    await a.getByRole('button', { name: 'Generate plan' }).click();
    const plan = a.getByTestId('scenario-plan');
    await plan.filter({ hasText: 'r1: all conditions true' }).waitFor();
    await a.getByRole('button', { name: 'Run plan' }).click();
    const run = a.getByTestId('scenario-run');
    await run.filter({ hasText: 'Row coverage' }).waitFor();
    await expect(run.textContent()).resolves.toMatch(/Run on v3: (\d+) of \1 passed, 0 failed/);
    await plan.getByText('Passed').first().waitFor();
    await a.getByTestId('scenario-statistics').filter({ hasText: '1 run(s)' }).waitFor();
    expect(await seriousViolations(a)).toEqual([]);
    await shot(a, 'scenarios.png');

    // a control-plane workflow: the plan of loan-approval v1 (read from the control plane over the bus),
    // run against v1 (its own expectations: nothing fails), then the gate of v1 with no coverage floor
    const workflow = a.getByTestId('workflow-scenarios');
    await workflow.getByLabel('Rule set').selectOption('loan-approval');
    await workflow.getByRole('textbox', { name: 'Version' }).fill('1');
    await workflow.getByRole('textbox', { name: 'Minimum coverage %' }).fill('0');
    await workflow.getByRole('button', { name: 'Generate workflow plan' }).click();
    const summary = a.getByTestId('workflow-plan-summary');
    await summary.filter({ hasText: 'Plan of loan-approval v1 (rules)' }).waitFor();
    const count = Number(/: (\d+) scenario/.exec((await summary.textContent()) ?? '')?.[1]);
    expect(count).toBeGreaterThan(0);
    await workflow.getByRole('button', { name: 'Run workflow plan' }).click();
    const wfRun = a.getByTestId('workflow-run');
    await wfRun.filter({ hasText: 'Run on v1' }).waitFor();
    await expect(wfRun.textContent()).resolves.toContain(`${count} of ${count} passed, 0 failed, 0 errors`);
    await a.getByTestId('workflow-plan').getByText('Passed').first().waitFor();
    await workflow.getByRole('button', { name: 'Run gate' }).click();
    await a.getByTestId('workflow-gate-verdict').filter({ hasText: 'gate passed' }).waitFor();
    await expect(wfRun.textContent()).resolves.toMatch(/Gate on v1 .*mutation score/);
    // the service's verdict is recorded for the version (what an approver checks)
    const verdict = await fetch(
      `${consoleUrl}/svc/decisions/api/v1/scenarios/workflows/loan-approval/versions/1/gate`,
      { headers: { 'x-tenant-id': 'default' } },
    ).then((r) => r.json() as Promise<any>);
    expect(verdict.status ?? verdict.result?.status).toBe('Passed');
    expect(await seriousViolations(a)).toEqual([]);
    await wfRun.scrollIntoViewIfNeeded();
    await shot(a, 'scenarios-workflow-gate.png');
  });

  it('license: the runtime state, and a key checked online before and after its activation', async () => {
    const identity = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
      const r = await fetch(`${identityUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      expect(r.status).toBeLessThan(300);
      const answer: any = await r.json();
      return answer.result ?? answer;
    };
    const { licenseKey } = await identity(
      '/api/v1/keys/generate',
      {
        organizationId: 'org-console',
        organizationName: 'Console e2e',
        tier: 'Licensed',
        validDays: 30,
        maxActivations: 2,
      },
      { 'x-admin-api-key': LICENSE_ADMIN_KEY },
    );
    await a.goto(`${consoleUrl}/#/license`);
    await a.getByTestId('runtime-license').filter({ hasText: 'Free' }).waitFor();
    await a.getByRole('textbox', { name: 'License key' }).fill(licenseKey);
    await a.getByRole('button', { name: 'Check' }).click();
    const check = a.getByTestId('license-check');
    await check.filter({ hasText: 'MACHINE_NOT_ACTIVATED' }).waitFor();
    await expect(check.textContent()).resolves.toContain('cp.publish');
    await identity('/api/v1/activate', {
      licenseKey,
      machineFingerprint: 'console',
      productVersion: '0.1.0',
      environment: 'test',
    });
    await a.getByRole('button', { name: 'Check' }).click();
    await check.filter({ hasText: 'allowed' }).waitFor();
    expect(await seriousViolations(a)).toEqual([]);
    await shot(a, 'license.png');
  });

  it('experience: the lesson store figures and a topic timeline', async () => {
    const stats: any = await fetch(`${identityUrl}/api/stats`, {
      headers: { 'x-tenant-id': 'default' },
    }).then((r) => r.json() as Promise<any>);
    await a.goto(`${consoleUrl}/#/experience`);
    const figures = a.getByTestId('experience-stats');
    await figures.filter({ hasText: 'Interceptions' }).waitFor();
    await expect(figures.textContent()).resolves.toContain(`Interceptions${stats.totalInterceptions}`);
    await a.getByRole('textbox', { name: 'Topic' }).fill('deploy');
    await a.getByRole('button', { name: 'Timeline' }).click();
    await a.getByTestId('experience-timeline').waitFor();
    expect(await seriousViolations(a)).toEqual([]);
  });

  /** The control plane's API as an operator would call it with authorization off (X-Actor names them). */
  async function cpApi(path: string, actor: string, body?: unknown): Promise<any> {
    const response = await fetch(`${consoleUrl}/svc/control-plane${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', 'x-tenant-id': 'default', 'x-actor': actor },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await response.json().catch(() => undefined);
    if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  }

  it('rollout: a canary started on one page shows live on the other, per-arm figures fill in, promote ends it everywhere', async () => {
    // v3 made ready through the API (the pages for saving and approving are covered above)
    const saved = await cpApi('/api/v1/control-plane/rulesets/loan-approval', 'admin', {
      detail: 'canary candidate',
      ruleSet: {
        type: 'rules',
        rules: [
          { id: 'adult', name: 'Adult', condition: 'age >= 18', output: { eligible: true, tier: 'b' } },
        ],
      },
    });
    await cpApi(`/api/v1/control-plane/approvals/loan-approval/${saved.version}/submit`, 'admin', {
      detail: 'canary candidate',
    });
    await cpApi(`/api/v1/control-plane/approvals/loan-approval/${saved.version}/approve`, 'bob', {
      detail: 'fine for a canary',
    });

    await b.goto(`${consoleUrl}/#/rollout/loan-approval`);
    await b.getByTestId('canary-start').waitFor();
    await a.goto(`${consoleUrl}/#/rollout/loan-approval`);
    await a.getByTestId('rollout-active').filter({ hasText: 'Active version: 1' }).waitFor();
    await a.getByLabel('Version').selectOption(String(saved.version));
    await a.getByRole('textbox', { name: 'Percentage' }).fill('50');
    await a.getByRole('button', { name: 'Start canary' }).click();
    await a
      .getByTestId('rollout-message')
      .filter({ hasText: `Canary of v${saved.version} started` })
      .waitFor();
    // the checker's open page shows the canary without a reload (CanaryStateChanged over the hub)
    await b
      .getByTestId('canary-running')
      .filter({ hasText: `Canary v${saved.version}` })
      .waitFor();

    // traffic: 40 bucket keys split between the arms by the murmur3 bucket
    for (let i = 0; i < 40; i++) {
      const r = await fetch(`${consoleUrl}/svc/control-plane/api/v1/rule-engine/execute/loan-approval`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-tenant-id': 'default' },
        body: JSON.stringify({ facts: { age: 20 + (i % 30) }, bucketKey: `customer-${i}` }),
      });
      expect(r.status).toBe(200);
    }
    const figure = async (arm: string) => Number(await a.getByTestId(`arm-${arm}-executions`).textContent());
    for (
      let i = 0;
      i < 60 && (await figure('canary').catch(() => 0)) + (await figure('active').catch(() => 0)) < 40;
      i++
    )
      await a.waitForTimeout(250);
    expect((await figure('canary')) + (await figure('active'))).toBe(40);
    expect(await figure('canary')).toBeGreaterThan(0);
    expect(await figure('active')).toBeGreaterThan(0);
    expect(await seriousViolations(a)).toEqual([]);
    await shot(a, 'rollout-canary.png');

    await a.getByRole('button', { name: 'Promote' }).click();
    await a.getByTestId('rollout-message').filter({ hasText: 'promoted' }).waitFor();
    // the other operator's page: the canary is gone, the promoted version active, the history says so
    await b
      .getByTestId('rollout-active')
      .filter({ hasText: `Active version: ${saved.version}` })
      .waitFor();
    await b.getByTestId('rollout-history').filter({ hasText: 'Promoted' }).waitFor();
    await b.getByTestId('canary-start').waitFor();
  });

  it('audit: the signed change audit with its chain verified per entry, filters, the execution audit by arm', async () => {
    await a.goto(`${consoleUrl}/#/audit/loan-approval`);
    await a.getByTestId('audit-verification').filter({ hasText: 'Chain verified' }).waitFor();
    const rows = a.getByTestId('change-audit').locator('tbody tr');
    await rows.first().waitFor();
    const count = await rows.count();
    expect(count).toBeGreaterThanOrEqual(8);
    expect(await a.getByTestId('change-audit').getByText('signature ✓ chain ✓').count()).toBe(count);
    await a.getByLabel('Action').selectOption('CANARY_PROMOTE');
    expect(await rows.count()).toBe(1);
    await expect(rows.first().textContent()).resolves.toContain('admin');
    await a.getByLabel('Action').selectOption('');
    await a.getByRole('textbox', { name: 'Actor' }).fill('bob');
    await expect(rows.allTextContents()).resolves.toEqual(
      expect.arrayContaining([expect.stringContaining('bob')]),
    );
    for (const text of await rows.allTextContents()) expect(text).toContain('bob');
    expect(await seriousViolations(a)).toEqual([]);
    await shot(a, 'audit.png');

    await a.getByRole('tab', { name: 'Executions and shadow' }).click();
    const executions = a.getByTestId('execution-audit').getByTestId('execution-entry');
    await executions.nth(19).waitFor();
    expect(await executions.count()).toBe(20);
    await a.getByRole('button', { name: 'Older executions' }).click();
    await executions.nth(39).waitFor();
    await a.getByLabel('Arm').selectOption('canary');
    const canaryRows = await executions.count();
    expect(canaryRows).toBeGreaterThan(0);
    expect(canaryRows).toBeLessThan(40);
    expect(await seriousViolations(a)).toEqual([]);
  });

  it('refreshes the session silently before the access token expires (page clock fast-forwarded)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.clock.install();
    await page.goto(consoleUrl);
    await page.locator('input[name=userName]').fill(BOB.userName);
    await page.locator('input[name=password]').fill(BOB.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('current-user').filter({ hasText: 'bob' }).waitFor();
    const stored = () =>
      page.evaluate(() =>
        JSON.parse((globalThis as any).sessionStorage.getItem('arbiter.console.session') ?? 'null'),
      );
    const before = await stored();
    // a 15-minute token is refreshed a minute ahead: move the page's clock past that point
    await page.clock.fastForward('14:30');
    let after = await stored();
    for (let i = 0; i < 100 && after?.refreshToken === before.refreshToken; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await stored();
    }
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.userName).toBe('bob');
    // the old refresh token was spent: identity refuses it (reuse detection)
    const reused = await fetch(`${identityUrl}/api/v1/auth/refresh-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${before.accessToken}` },
      body: JSON.stringify({ refreshToken: before.refreshToken }),
    });
    expect(reused.status).toBe(401);
    await context.close();
  });

  it('logs out: the refresh token no longer works and the sign-in form is back', async () => {
    const session = JSON.parse(
      (await a.evaluate(() => (globalThis as any).sessionStorage.getItem('arbiter.console.session'))) ??
        'null',
    );
    await a.getByRole('button', { name: 'Log out' }).click();
    await a.getByRole('button', { name: 'Sign in' }).waitFor();
    const refreshed = await fetch(`${identityUrl}/api/v1/auth/refresh-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session.accessToken}` },
      body: JSON.stringify({ refreshToken: session.refreshToken }),
    });
    expect(refreshed.status).toBe(401);
  });
});
