import { Command } from 'commander';
import { VERSION } from './version.js';
import { ConfigError } from './config.js';

/** `steward <command>`: one binary for every Steward process. */
export function buildCli(env: Record<string, string | undefined>): Command {
  const program = new Command('steward').description('Steward: governance for AI agents on Kubernetes').version(VERSION);

  program
    .command('standalone')
    .description('gateway, orchestrator and agent pool in one process on embedded PGlite (no cluster)')
    .action(async () => {
      const { runStandalone } = await import('./standalone/main.js');
      await runStandalone(env);
    });

  program
    .command('validate')
    .description('validate Steward manifests (files or folders); exit 1 on any error')
    .argument('<paths...>', 'YAML or JSON files, or folders of them')
    .option('-q, --quiet', 'print errors only')
    .action(async (paths: string[], opts: { quiet?: boolean }) => {
      const { validateFiles } = await import('./validate-cli.js');
      const report = await validateFiles(paths);
      for (const e of report.errors) console.error(`error: ${e}`);
      if (!opts.quiet) for (const w of report.warnings) console.error(`warning: ${w}`);
      if (!opts.quiet) console.log(`${report.documents} document(s), ${report.errors.length} error(s), ${report.warnings.length} warning(s)`);
      process.exitCode = report.errors.length ? 1 : 0;
    });

  const license = program.command('license').description('mint and explain license keys');
  license
    .command('issue')
    .description('mint a license key signed with STEWARD_LICENSE_SIGNING_SECRET (or --secret-file)')
    .requiredOption('--tier <tier>', 'PRO, ENT or PLUS')
    .requiredOption('--expires <date>', 'expiry date, e.g. 2027-06-30 (end of that day, UTC)')
    .option('--secret-file <file>', 'file holding the signing secret')
    .action(async (opts: { tier: string; expires: string; secretFile?: string }) => {
      const { issueCommand, signingSecret } = await import('./license-cli.js');
      console.log(issueCommand(opts, signingSecret(env, opts.secretFile)));
    });
  license
    .command('inspect')
    .description('explain a license key; checks the signature when a secret is available')
    .argument('<key>')
    .option('--secret-file <file>', 'file holding the signing secret')
    .action(async (key: string, opts: { secretFile?: string }) => {
      const { inspectCommand, signingSecret } = await import('./license-cli.js');
      const result = inspectCommand(key, signingSecret(env, opts.secretFile), new Date());
      console.log(result.text);
      process.exitCode = result.ok ? 0 : 1;
    });

  return program;
}

export async function main(argv: string[], env: Record<string, string | undefined>): Promise<void> {
  try {
    await buildCli(env).parseAsync(argv);
  } catch (err) {
    if (err instanceof ConfigError || (err instanceof Error && err.name === 'LicenseCliError')) {
      console.error((err as Error).message);
      process.exit(2);
    }
    console.error(err);
    process.exit(1);
  }
}
