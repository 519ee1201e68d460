import { createTestDatabase, TestDatabase } from '@arbiter/testing';
import { ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';

/** What the console's browser tests share: the browser, the platform as `npm start` runs it, axe. */
export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
const main = join(__dirname, '..', '..', 'cli', 'dist', 'main.js');
/** every run writes its screenshots here (git-ignored) */
export const RUN_SCREENSHOTS = join(__dirname, '..', 'test-results', 'screenshots');
/** the copies linked from the README (committed), refreshed only with UPDATE_SCREENSHOTS=1 */
const committedScreenshots = join(__dirname, '..', 'docs', 'screenshots');

if (!hasChromium) {
  // a clear message, not a failure: the machine has no browser to drive
  console.warn(`console e2e skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);
}
export const describeWithBrowser = hasChromium ? describe : describe.skip;

/**
 * A screenshot of the page: every run writes it to `test-results/screenshots/` (git-ignored, what CI
 * keeps); with UPDATE_SCREENSHOTS=1 it also replaces the committed copy in `docs/screenshots/` that the
 * README links, so an ordinary run never dirties the tree.
 */
export const UPDATE_SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1';
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(RUN_SCREENSHOTS, { recursive: true });
  const path = join(RUN_SCREENSHOTS, name);
  await page.screenshot({ path });
  if (!UPDATE_SCREENSHOTS) return;
  mkdirSync(committedScreenshots, { recursive: true });
  copyFileSync(path, join(committedScreenshots, name));
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** axe-core injected into the page: the serious and critical violations. */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  const violations = await page.evaluate(async () => {
    const page = globalThis as any;
    const result = await page.axe.run(page.document, { resultTypes: ['violations'] });
    return result.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.slice(0, 3).map((n: any) => n.target.join(' ')),
    }));
  });
  return violations
    .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
    .map((v: any) => `${v.id} (${v.impact}): ${v.help} at ${v.targets.join(', ')}`);
}

/** Debian's Chromium, headless, with the flags the issue names; never a browser download. */
export async function launchBrowser(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
    ],
  });
}

export interface RunningArbiter {
  consoleUrl: string;
  identityUrl: string;
  controlPlaneUrl: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * `arbiter start` from the build in a child process (as `npm start` runs it), on free ports, with test
 * databases of its own (`@arbiter/testing`: PGlite, or `TEST_DATABASE_URL`) and NATS when `TEST_NATS_URL`
 * is set; `env` adds the configuration of the run.
 */
export async function startArbiter(env: Record<string, string>): Promise<RunningArbiter> {
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first`);
  const databases: TestDatabase[] = [];
  const db = async () => {
    const d = await createTestDatabase();
    databases.push(d);
    return d.url;
  };
  const ports = {
    cp: await freePort(),
    dt: await freePort(),
    id: await freePort(),
    console: await freePort(),
  };
  const child: ChildProcess = spawn(process.execPath, [main, 'start', '--host', '127.0.0.1'], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      ARBITER_CONTROL_PLANE_PORT: String(ports.cp),
      ARBITER_DECISIONS_PORT: String(ports.dt),
      ARBITER_IDENTITY_PORT: String(ports.id),
      ARBITER_CONSOLE_PORT: String(ports.console),
      ConnectionStrings__RuleControlPlaneDb: await db(),
      ConnectionStrings__DecisionTablesDb: await db(),
      ConnectionStrings__LicenseDb: await db(),
      ...(process.env.TEST_NATS_URL ? { ConnectionStrings__Cache: process.env.TEST_NATS_URL } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const stop = async () => {
    child.stdout?.destroy();
    child.stderr?.destroy();
    if (child.exitCode === null) {
      const exit = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exit, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    for (const d of databases) await d.drop();
  };
  const deadline = Date.now() + 90_000;
  while (!output.includes('Arbiter is running')) {
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error(`did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  // the addresses as `arbiter start` prints them (the environment may have moved a port)
  const printed = (name: string) => {
    const url = new RegExp(`^\\s+${name}\\s+(http://localhost:\\d+)`, 'm').exec(output)?.[1];
    if (!url) throw new Error(`no ${name} line:\n${output}`);
    return url.replace('localhost', '127.0.0.1');
  };
  return {
    consoleUrl: printed('console'),
    identityUrl: printed('identity'),
    controlPlaneUrl: printed('control-plane'),
    output: () => output,
    stop,
  };
}
