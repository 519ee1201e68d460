#!/usr/bin/env node
import { Command } from 'commander';
import { runStartCommand } from './commands/start';

const program = new Command();
program.name('arbiter').description('Arbiter rules platform command line');

program
  .command('start')
  .description('Start control-plane (:3000), decisions (:3001) and identity (:3002) in one process')
  .option('--only <services>', 'comma-separated subset: control-plane,decisions,identity')
  .option('--host <host>', 'interface to bind', '0.0.0.0')
  .action(async (options) => {
    await runStartCommand(options);
  });

program.parseAsync(process.argv).catch((error: Error) => {
  process.stderr.write(`arbiter: ${error.message}\n`);
  process.exit(1);
});
