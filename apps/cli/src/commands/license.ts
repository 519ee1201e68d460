import {
  checkLicenseKey,
  decodeDocument,
  evaluateLicense,
  LicenseKeySet,
  verifyActivationProof,
} from '@arbiter/licensing';
import { Command, CommanderError } from 'commander';
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** Exit codes of `arbiter license …`. */
export const EXIT = { ok: 0, rejected: 1, usage: 2, unreachable: 3 } as const;

/** The default license server (identity on this machine). */
export const DEFAULT_LICENSE_SERVER = 'http://localhost:3002';

export interface LicenseCliIo {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
  machineName(): string;
  /** Request deadline in milliseconds. */
  timeoutMs?: number;
}

const processIo: LicenseCliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  machineName: () => hostname(),
};

/** A failure that ends the command with an exit code and one line on stderr. */
class CliFailure extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}

function requireKey(input: string): string {
  const checked = checkLicenseKey(input);
  if (checked.ok) return checked.licenseKey;
  throw new CliFailure(
    EXIT.usage,
    checked.reason === 'CHECK_CODE'
      ? `the license key ${input} is mistyped (its check code does not match)`
      : `${input} is not a license key (ARB-XXXXX-XXXXX-XXXXX-XXXXX-CC)`,
  );
}

function serverUrl(input: string): string {
  try {
    const url = new URL(input);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
    return url.toString().replace(/\/+$/, '');
  } catch {
    throw new CliFailure(EXIT.usage, `--server ${input} is not an http(s) URL`);
  }
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

interface Answer {
  status: number;
  body: any;
}

async function request(
  io: LicenseCliIo,
  server: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(`${server}${path}`, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(io.timeoutMs ?? 15_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new CliFailure(EXIT.unreachable, `cannot reach the license server at ${server} (${why})`);
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed };
}

function rejection(what: string, answer: Answer): CliFailure {
  const error = answer.body?.errors?.[0];
  const detail = error ? `${error.code}: ${error.message}` : `HTTP ${answer.status}`;
  return new CliFailure(EXIT.rejected, `${what} rejected (${answer.status} ${detail})`);
}

function readJson(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliFailure(
      EXIT.usage,
      `cannot read ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new CliFailure(EXIT.usage, `${what} ${file} is not JSON`);
  }
}

export async function licenseActivate(
  io: LicenseCliIo,
  options: {
    key: string;
    server: string;
    environment: string;
    output: string;
    fingerprint?: string;
    productVersion: string;
    manifest?: string;
    keysOutput?: string;
    /** a file holding the license's signed policy (the `signedPayload` issued with the key) */
    policy?: string;
  },
): Promise<void> {
  const licenseKey = requireKey(options.key);
  const server = serverUrl(options.server);
  const manifest = options.manifest ? readJson(options.manifest, 'manifest') : undefined;
  if (manifest !== undefined && !Array.isArray(manifest)) {
    throw new CliFailure(EXIT.usage, `manifest ${options.manifest} must be a JSON array of assemblies`);
  }
  let signedPolicy: string | undefined;
  if (options.policy) {
    try {
      signedPolicy = readFileSync(options.policy, 'utf8').trim();
    } catch (error) {
      throw new CliFailure(
        EXIT.usage,
        `cannot read the signed policy ${options.policy}: ${(error as Error).message}`,
      );
    }
  }
  const machineFingerprint = options.fingerprint?.trim() || io.machineName();
  const answer = await request(io, server, 'POST', '/api/v1/activate', {
    ...(signedPolicy ? { signedPolicy } : {}),
    licenseKey,
    machineFingerprint,
    environment: options.environment,
    productVersion: options.productVersion,
    ...(manifest ? { assemblyManifest: manifest } : {}),
  });
  if (answer.status !== 200 || !answer.body?.result?.activationProof) throw rejection('activation', answer);
  const proof = decodeDocument(answer.body.result.activationProof) as { kid: string; payload: any };
  writeFileSync(options.output, `${JSON.stringify(proof, null, 2)}\n`);
  const keys = await request(io, server, 'GET', '/api/v1/license/keys');
  const keysFile = options.keysOutput ?? `${options.output}.keys.json`;
  if (keys.status === 200 && Array.isArray(keys.body?.keys))
    writeFileSync(keysFile, `${JSON.stringify(keys.body, null, 2)}\n`);
  const p = proof.payload;
  io.out(
    `Activated license ${p.licenseId} (${p.tier}: ${p.allowedFeatures.join(', ') || 'no features'}) on ${machineFingerprint}, ` +
      `valid until ${p.expiresAt}; proof saved to ${options.output} (key ${proof.kid}), public keys to ${keysFile}\n`,
  );
}

export async function licenseFeatures(
  io: LicenseCliIo,
  options: { key: string; add?: string; remove?: string; server: string; adminToken?: string },
): Promise<void> {
  const licenseKey = requireKey(options.key);
  const add = list(options.add);
  const remove = list(options.remove);
  if (!add.length && !remove.length)
    throw new CliFailure(EXIT.usage, 'give --add or --remove (comma-separated capability keys)');
  const token = options.adminToken ?? io.env.SVC_LICENSE_ADMIN_TOKEN;
  if (!token)
    throw new CliFailure(EXIT.usage, 'no admin token: pass --admin-token or set SVC_LICENSE_ADMIN_TOKEN');
  const server = serverUrl(options.server);
  const answer = await request(
    io,
    server,
    'POST',
    `/api/v1/keys/${encodeURIComponent(licenseKey)}/features`,
    { ...(add.length ? { add } : {}), ...(remove.length ? { remove } : {}) },
    { 'X-Admin-Api-Key': token },
  );
  if (answer.status !== 200) throw rejection('feature update', answer);
  const result = answer.body.result as { licenseKey: string; allowedFeatures: string[] };
  io.out(
    `${result.licenseKey}: ${result.allowedFeatures.join(', ') || '(no features)'} ` +
      `(machines get the change when they re-activate)\n`,
  );
}

export function licenseVerify(
  io: LicenseCliIo,
  options: { proof: string; keys?: string; fingerprint?: string; json?: boolean },
): void {
  const proof = readJson(options.proof, 'proof');
  const keysFile = options.keys ?? `${options.proof}.keys.json`;
  const keys = new LicenseKeySet(readJson(keysFile, 'public keys') as { keys?: unknown[] });
  const verified = verifyActivationProof(proof, keys, { machineFingerprint: options.fingerprint });
  const state = verified.valid
    ? evaluateLicense({ proof, keys, machineFingerprint: options.fingerprint })
    : undefined;
  const valid = verified.valid && !!state?.valid;
  if (options.json) {
    io.out(
      `${JSON.stringify(
        verified.valid
          ? { valid, kid: verified.kid, ...state, clock: undefined }
          : { valid, reason: verified.reason, message: verified.message },
        null,
        2,
      )}\n`,
    );
  }
  if (!verified.valid)
    throw new CliFailure(
      EXIT.rejected,
      `proof ${options.proof} is NOT valid: ${verified.reason} (${verified.message})`,
    );
  if (!state?.valid)
    throw new CliFailure(
      EXIT.rejected,
      `proof ${options.proof} is NOT valid: ${state?.reason} (${state?.message})`,
    );
  if (!options.json) {
    const p = verified.payload;
    io.out(
      `OK: license ${p.licenseId} (${p.tier}: ${p.allowedFeatures.join(', ')}) for ${p.machineFingerprint}, ` +
        `valid until ${p.expiresAt}, signed by ${verified.kid} (${keys.trusted(verified.kid)?.alg ?? '?'})\n`,
    );
  }
}

/** `arbiter license …`: its commands, wired to `io`; the exit code lands in `exit.code`. */
export function createLicenseCommand(io: LicenseCliIo, exit: { code: number }): Command {
  const guard =
    <T>(run: (options: T) => Promise<void> | void) =>
    async (options: T) => {
      try {
        await run(options);
        exit.code = EXIT.ok;
      } catch (error) {
        if (!(error instanceof CliFailure)) throw error;
        io.err(`arbiter license: ${error.message}\n`);
        exit.code = error.exitCode;
      }
    };
  const license = new Command('license').description(
    'License activation, capability keys and offline proof verification (exit codes: 0 ok, 1 rejected, 2 usage, 3 server unreachable)',
  );
  license
    .command('activate')
    .description('Activate a license on this machine and save the decoded proof JSON')
    .requiredOption('--key <licenseKey>', 'the license key (ARB-XXXXX-XXXXX-XXXXX-XXXXX-CC)')
    .requiredOption('--server <url>', 'license server base URL (e.g. http://localhost:3002)')
    .requiredOption('--environment <name>', 'environment the machine runs (e.g. Production)')
    .requiredOption('--output <file>', 'where to save the proof JSON')
    .option('--fingerprint <id>', 'machine fingerprint (default: the machine name)')
    .option('--product-version <version>', 'product version reported to the server', '1.0.0')
    .option(
      '--manifest <file>',
      'JSON array of assemblies { assemblyName, version, sha256Hash, publicKeyToken } of a custom build',
    )
    .option('--keys-output <file>', "where to save the server's public keys (default: <output>.keys.json)")
    .option(
      '--policy <file>',
      "the license's signed policy (the signedPayload issued with the key); required by servers with LicenseConfigs:RequireSignedPolicy",
    )
    .action(guard((o: any) => licenseActivate(io, o)));
  license
    .command('features')
    .description("Add or remove a license's capability keys (admin)")
    .requiredOption('--key <licenseKey>', 'the license key')
    .option('--add <keys>', 'comma-separated capability keys to grant (e.g. pdf.canary,pdf.registry)')
    .option('--remove <keys>', 'comma-separated capability keys to take away')
    .option('--server <url>', 'license server base URL', DEFAULT_LICENSE_SERVER)
    .option(
      '--admin-token <token>',
      'admin API key, sent as X-Admin-Api-Key (default: $SVC_LICENSE_ADMIN_TOKEN)',
    )
    .action(guard((o: any) => licenseFeatures(io, o)));
  license
    .command('verify')
    .description('Verify a saved proof offline against saved public keys')
    .requiredOption('--proof <file>', 'the proof JSON saved by `arbiter license activate`')
    .option('--keys <file>', 'the public keys (JWKS) (default: <proof>.keys.json)')
    .option('--fingerprint <id>', 'check the proof is bound to this machine')
    .option('--json', 'print the result as JSON')
    .action(guard((o: any) => licenseVerify(io, o)));
  return license;
}

/**
 * Runs `arbiter license <args>` and answers the exit code: usage errors (unknown option, missing required
 * option) are 2, `--help` is 0.
 */
export async function runLicenseCli(args: string[], io: LicenseCliIo = processIo): Promise<number> {
  const exit = { code: EXIT.ok as number };
  const root = new Command('arbiter').exitOverride();
  const license = createLicenseCommand(io, exit);
  root.addCommand(license);
  for (const command of [root, license, ...license.commands]) {
    command.exitOverride();
    command.configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) });
  }
  try {
    await root.parseAsync(['license', ...args], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.help' ||
        error.code === 'commander.version'
      )
        return EXIT.ok;
      return EXIT.usage;
    }
    io.err(`arbiter license: ${(error as Error).message}\n`);
    return EXIT.rejected;
  }
  return exit.code;
}
