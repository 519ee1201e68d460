#!/usr/bin/env node
import { Command } from 'commander';
import { formatAuditReport, runAuditVerify } from './commands/audit';
import {
  readStdin,
  runExperienceFeedback,
  runExperienceIntercept,
  runExperiencePostTool,
} from './commands/experience';
import { runLicenseCli } from './commands/license';
import { runScenariosGate } from './commands/scenarios';
import { runStartCommand } from './commands/start';

const program = new Command();
program.name('arbiter').description('Arbiter rules platform command line');

program
  .command('start')
  .description(
    'Start control-plane (:3000), decisions (:3001), identity (:3002) and the operator console (:3003) in one process',
  )
  .option('--only <services>', 'comma-separated subset: control-plane,decisions,identity,console')
  .option('--host <host>', 'interface to bind', '0.0.0.0')
  .action(async (options) => {
    await runStartCommand(options);
  });

program
  .command('audit')
  .description('Control-plane audit trail')
  .command('verify')
  .description('Verify the signed, hash-chained audit of a tenant; reports the first bad entry (exit 2)')
  .option('--workflow <name>', 'workflow whose entries to report (the whole tenant chain is verified)')
  .option('--tenant <tenant>', 'tenant id', 'default')
  .option('--url <url>', 'control-plane base URL (reads /api/v1/control-plane/audit/chain)')
  .option('--database <conn>', 'postgres:// connection string of the control-plane database')
  .option('--public-key <pem>', 'PEM file of the audit public key (required with --database)')
  .option('--key-id <id>', 'key id of --public-key (default: every key id in the chain)')
  .option('--token <jwt>', 'bearer token for --url when authorization is enabled')
  .option(
    '--min-seq <n>',
    'head seq seen at an earlier verification: a lower head means the chain was rolled back (fails)',
  )
  .option('--json', 'print the report as JSON')
  .action(async (options) => {
    const report = await runAuditVerify(options);
    process.stdout.write(`${options.json ? JSON.stringify(report, null, 2) : formatAuditReport(report)}\n`);
    process.exitCode = report.valid ? 0 : 2;
  });

program
  .command('scenarios')
  .description('Generated test scenarios of decision tables and control-plane workflows')
  .command('gate')
  .description(
    'Run the scenario gate of a table or a workflow on a decisions service: prints coverage and failures, exits 1 when it fails',
  )
  .requiredOption('--server <url>', 'decisions service base URL (e.g. http://localhost:3001)')
  .option('--table <id>', 'decision table id')
  .option('--workflow <name>', 'control-plane workflow (rule set or flow) name')
  .option(
    '--version <n>',
    'candidate version (default: the latest table version; a workflow: its plan or active version)',
  )
  .option('--min-coverage <percent>', 'minimum row coverage', '90')
  .option('--min-mutation-score <percent>', 'minimum mutation score (default: reported only)')
  .option('--no-mutation', 'skip the mutation analysis')
  .option('--token <jwt>', 'bearer token when authentication is enabled')
  .option('--tenant <tenant>', 'tenant id (x-tenant-id header)')
  .option('--junit <file>', 'write JUnit XML here')
  .option('--sarif <file>', 'write SARIF 2.1.0 here')
  .option('--json', 'print the gate result as JSON')
  .action(async (options) => {
    if (!options.table === !options.workflow) {
      process.stderr.write('arbiter: give exactly one of --table <id> and --workflow <name>\n');
      process.exitCode = 2;
      return;
    }
    process.exitCode = await runScenariosGate(options, (text) => process.stdout.write(`${text}\n`));
  });

const experience = program
  .command('experience')
  .description('Experience service hooks: lessons before a tool call, outcomes after it (fail open)');
const clientOptions = (command: Command) =>
  command
    .option('--config <file>', 'config.json with serverBaseUrl and serverAuthToken')
    .option('--url <url>', 'service base URL (overrides the config file)')
    .option('--token <token>', 'bearer token (overrides the config file)')
    .option('--timeout-ms <ms>', 'hard timeout; past it the hook prints nothing and exits 0', '1500');
clientOptions(
  experience
    .command('intercept')
    .description('Tool call JSON on stdin; prints the suggestion (nothing when none, on error or timeout)'),
).action(async (options) => {
  const text = await runExperienceIntercept(await readStdin(), options);
  if (text) process.stdout.write(`${text}\n`);
});
clientOptions(
  experience
    .command('posttool')
    .description(
      'Tool call and outcome JSON on stdin; queues the verdict judge (prints the job id; fails open)',
    ),
).action(async (options) => {
  const id = await runExperiencePostTool(await readStdin(), options);
  if (id) process.stdout.write(`${id}\n`);
});
clientOptions(
  experience
    .command('feedback')
    .description('Suggestion text on stdin; sends the verdict for every pointId/collection in it')
    .requiredOption('--verdict <verdict>', 'followed, ignored or irrelevant'),
).action(async (options) => {
  const result = await runExperienceFeedback(await readStdin(), options.verdict, options);
  process.stdout.write(`recorded ${result.recorded}\n`);
  for (const f of result.failed) process.stderr.write(`failed ${f}\n`);
  process.exitCode = result.failed.length ? 1 : 0;
});

// `arbiter license …` has its own exit codes (0 ok, 1 rejected, 2 usage, 3 unreachable): run on its own parser
program
  .command('license')
  .description('License activation, capability keys, offline proof verification (`arbiter license --help`)')
  .helpOption(false)
  .allowUnknownOption()
  .argument('[args...]');

if (process.argv[2] === 'license') {
  runLicenseCli(process.argv.slice(3)).then((code) => process.exit(code));
} else {
  program.parseAsync(process.argv).catch((error: Error) => {
    process.stderr.write(`arbiter: ${error.message}\n`);
    process.exit(1);
  });
}
