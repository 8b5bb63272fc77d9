// NB: only light modules at the top: a configuration error must end the process before the gateway's modules
// (fastify, the Rego engine, PGlite, the LLM SDKs) load, which takes seconds under tsx. They are imported after parsing.
import { Command, Option } from 'commander';
import { VERSION } from '../platform/version.js';
import { ConfigError } from '../platform/config.js';
import { agentSettings, gatewaySettings, orchestratorSettings, standaloneSettings } from './config/settings.js';
import { StartupError } from '../platform/startup-error.js';

/** `steward <command>`: one binary for every Steward process. */
export function buildCli(env: Record<string, string | undefined>): Command {
  const program = new Command('steward')
    .description('Steward: governance for AI agents on Kubernetes')
    .version(VERSION);

  program
    .command('standalone')
    .description('gateway, orchestrator and agent pool in one process on embedded PGlite (no cluster)')
    .action(async () => {
      const settings = standaloneSettings(env);
      // Checked before the heavy imports too, so that a mistyped folder is reported in well under a second.
      const { checkManifestFolders } = await import('../runtime/source/folders.js');
      await checkManifestFolders(settings.manifests.folders);
      const { runStandalone } = await import('../runtime/standalone/main.js');
      await runStandalone(settings, env);
    });

  program
    .command('gateway')
    .description(
      'the gateway alone on STEWARD_GATEWAY_PORT (8080); STEWARD_SOURCE=kubernetes reads the cluster (docs/cluster-mode.md)',
    )
    .action(async () => {
      const settings = gatewaySettings(env);
      const { runGateway } = await import('../runtime/gateway/main.js');
      await runGateway(settings, env);
    });

  program
    .command('orchestrator')
    .description(
      'the orchestrator alone on PORT (8081): parallel surface over STEWARD_AGENT_ENDPOINTS or in-process agents',
    )
    .action(async () => {
      const settings = orchestratorSettings(env);
      const { runOrchestrator } = await import('../runtime/orchestrator/main.js');
      await runOrchestrator(settings, env);
    });

  program
    .command('agent')
    .description('a pool agent: runs work items for one AgentConfig (STEWARD_AGENT_NAME) on STEWARD_AGENT_PORT')
    .action(async () => {
      const settings = agentSettings(env);
      const { runAgent } = await import('../runtime/agent/main.js');
      await runAgent(settings);
    });

  program
    .command('operator')
    .description('the Kubernetes operator: reconciles the five kinds into workloads (leader-elected over a Lease)')
    .action(async () => {
      const { operatorSettings } = await import('./config/operator-env.js');
      const settings = operatorSettings(env);
      const { runOperator } = await import('../operator/main.js');
      await runOperator(settings);
    });

  program
    .command('validate')
    .description('check manifests as start-up reads them (schemas, duplicates, Policy Rego); exit 1 on any error')
    .argument('<paths...>', 'YAML or JSON files, or folders of them (walked recursively)')
    .option('-q, --quiet', 'print errors only')
    .option('--strict', 'documents of other APIs (Secrets, ...) are errors instead of being skipped')
    .action(async (paths: string[], opts: { quiet?: boolean; strict?: boolean }) => {
      const { summary, validateFiles } = await import('./validate-cli.js');
      const report = await validateFiles(paths, { strict: opts.strict === true });
      for (const e of report.errors) console.error(`error: ${e}`);
      if (!opts.quiet) for (const w of report.warnings) console.error(`warning: ${w}`);
      if (!opts.quiet) console.log(summary(report, { strict: opts.strict === true }));
      process.exitCode = report.errors.length ? 1 : 0;
    });

  const policy = program
    .command('policy')
    .description('test policies as `opa test` does, and decide one input as the gateway would (docs/policy-testing.md)')
    // NB: a usage error (unknown flag, wrong choice) exits 2 here, as a compile error does; --help exits 0.
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));
  policy
    .command('test')
    .description('run the test_* rules of .rego files and Policy manifests, and *.policytest fixture suites')
    .argument('[paths...]', 'files or folders, walked recursively (default: the current folder)')
    .option('-v, --verbose', 'print every test, not only failures and errors')
    .addOption(new Option('-f, --format <format>', 'output').choices(['pretty', 'json', 'junit']).default('pretty'))
    .option('-r, --run <regex>', 'only tests whose full name (data.pkg.test_x, suite#case) matches')
    .option('-t, --timeout <duration>', 'budget of one test, e.g. 500ms', '5s')
    .option('--v0-compatible', 'parse .rego files as Rego v0')
    .action(async (paths: string[], opts: import('./policy/index.js').PolicyTestOptions) => {
      const { emit, policyTest } = await import('./policy/index.js');
      emit(await policyTest(paths, opts));
    });
  policy
    .command('eval')
    .description("decide one policy input as the gateway's pre-check would; exit 0 allowed, 1 blocked, 2 error")
    .requiredOption('-i, --input <file>', 'the policy input document (JSON), or - for standard input')
    .option('-m, --manifests <paths...>', 'manifest folders or files, read before the built-in pack')
    .option('--no-builtin-pack', 'leave the built-in pack (config/policies) out')
    .addOption(
      new Option('--gateway <url>', "ask a running gateway's POST /api/policies/test instead").conflicts([
        'manifests',
        'organization',
        'tenant',
      ]),
    )
    .option('--api-key <key>', 'the gateway credential, sent as Authorization: Bearer (default: STEWARD_API_KEY)')
    .option('--organization <id>', "the caller's organization (scoped policies, input.client)")
    .option('--tenant <id>', "the caller's tenant")
    .addOption(new Option('-f, --format <format>', 'output').choices(['pretty', 'json']).default('pretty'))
    .option('-t, --timeout <duration>', 'budget of the evaluation or the gateway request', '5s')
    .action(async (opts: import('./policy/index.js').PolicyEvalOptions) => {
      const { emit, policyEval } = await import('./policy/index.js');
      emit(await policyEval({ ...opts, apiKey: opts.apiKey ?? env.STEWARD_API_KEY }));
    });

  const audit = program
    .command('audit')
    .description('check the hash-chained audit log and its signed checkpoints, and export it (docs/audit-evidence.md)')
    // NB: a usage error exits 2, as a connection error does; 1 is kept for a broken audit log.
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));
  audit
    .command('verify')
    .description(
      'exit 0 when every row and checkpoint checks out, 1 naming the first broken row, 2 on a usage or connection error',
    )
    .option('--database-url <url>', 'PostgreSQL (default: DATABASE_URL, else the embedded database)')
    .option('--data-dir <dir>', 'the embedded database of this data folder (default: STEWARD_DATA_DIR, ./.data)')
    .addOption(
      new Option('--file <export>', 'an export (JSON lines) instead of a database').conflicts([
        'databaseUrl',
        'dataDir',
      ]),
    )
    .option(
      '--public-key <file>',
      'SPKI PEM public key (default: STEWARD_AUDIT_PUBLIC_KEY_FILE, <STEWARD_AUDIT_SIGNING_KEY_FILE>.pub, <data dir>/audit-signing-key.pem.pub)',
    )
    .option('--organization <id>', "only this organization's chain")
    .option('--no-signatures', 'pass without a public key: checkpoints are matched by hash, their signatures unchecked')
    .addOption(new Option('-f, --format <format>', 'output').choices(['pretty', 'json']).default('pretty'))
    .action(async (opts: import('./audit/index.js').AuditVerifyOptions) => {
      const { auditVerify, emit } = await import('./audit/index.js');
      emit(await auditVerify(opts, env));
    });
  audit
    .command('export')
    .description(
      "write one organization's audit rows, hashes and checkpoints as JSON lines (verify --file checks them)",
    )
    .requiredOption('--organization <id>', 'the chain to export')
    .option('--from <time>', 'rows dated at or after this (RFC 3339, or a date: midnight UTC)')
    .option('--to <time>', 'rows dated before this')
    .option('-o, --out <file>', 'write here (mode 0600) instead of standard output')
    .option('--database-url <url>', 'PostgreSQL (default: DATABASE_URL, else the embedded database)')
    .option('--data-dir <dir>', 'the embedded database of this data folder (default: STEWARD_DATA_DIR, ./.data)')
    .action(async (opts: import('./audit/index.js').AuditExportOptions) => {
      const { auditExport, emit } = await import('./audit/index.js');
      emit(await auditExport(opts, env));
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
      console.log(issueCommand(opts, signingSecret(env, opts.secretFile), new Date()));
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
    // Something a person fixes by changing a setting: one line naming it, exit 2; the stack only when debugging.
    if (
      err instanceof ConfigError ||
      err instanceof StartupError ||
      (err instanceof Error && err.name === 'LicenseCliError')
    ) {
      console.error(`steward: ${oneLine((err as Error).message)}`);
      if (DEBUG_LEVELS.has(env.LOG_LEVEL ?? '')) console.error((err as Error).cause ?? err);
      process.exit(2);
    }
    console.error(err);
    process.exit(1);
  }
}

const DEBUG_LEVELS = new Set(['debug', 'trace']);

/** A message from a server or a library may hold newlines; the error line stays one line. */
function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ');
}
