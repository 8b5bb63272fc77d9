/**
 * `steward policy eval --input FILE|-`: one policy input, decided as the gateway's pre-check decides it, either by
 * the gateway's engine over manifest folders here (the user's folders, then the built-in pack, as
 * STEWARD_MANIFESTS and STEWARD_BUILTIN_POLICY_PACK make them) or by a running gateway's `POST /api/policies/test`
 * (which evaluates without recording anything). Exit 0 allowed, 1 blocked, 2 a usage, input or compile error.
 */
import { readFile } from 'node:fs/promises';
import { PolicyInputTooLargeError } from '../../runtime/policy/input-size.js';
import { manifestFolders } from '../../runtime/source/index.js';
import { parseDuration } from './duration.js';
import { DEFAULT_MAX_STEPS, openEngine } from './engine.js';
import { PolicyCliError, usageFailure, type CommandOutput } from './errors.js';
import { askGateway } from './gateway-client.js';
import { listOrNone, policyInputOf, type CallerScope } from './input.js';

export interface PolicyEvalOptions extends CallerScope {
  /** A JSON file of the policy input, or `-` for standard input. */
  input: string;
  /** Manifest folders (or files), read before the built-in pack. @default none: the pack alone */
  manifests?: string[];
  /** Add the built-in pack. @default true, as the gateway */
  builtinPack?: boolean;
  /** A running gateway's base URL: ask it instead of evaluating here. */
  gateway?: string;
  /** The gateway credential (API key or license key), sent as `Authorization: Bearer`. */
  apiKey?: string;
  format?: 'pretty' | 'json';
  /** The evaluation's (or the gateway request's) budget. @default 5s */
  timeout?: string;
  /** Reads standard input (for `--input -`). @default the process's standard input */
  stdin?: () => Promise<string>;
}

/** The decision, as both paths report it. */
export interface EvalDecision {
  approved: boolean;
  policies: string[];
  blockReason?: string;
  warnings: string[];
  evaluationMs: number;
  /** Policies evaluated (local only: the gateway's test endpoint does not say). */
  evaluated?: string[];
  /** Where the decision was made: `local` or the gateway's URL. */
  source: string;
  /** Fields of the input the gateway's test endpoint does not read. */
  ignored?: string[];
}

export async function policyEval(options: PolicyEvalOptions): Promise<CommandOutput> {
  try {
    const timeoutMs = parseDuration(options.timeout ?? '5s', '--timeout');
    const raw = await readInput(options);
    const caller = { organization: options.organization, tenant: options.tenant };
    const decision = options.gateway
      ? await askGateway(options.gateway, raw, { apiKey: options.apiKey, timeoutMs })
      : await evaluateHere(raw, caller, options, timeoutMs);
    return {
      stdout: options.format === 'json' ? `${JSON.stringify(asJson(decision), null, 2)}\n` : pretty(decision),
      stderr: decision.ignored?.length
        ? `note: the gateway's /api/policies/test reads query and context only; not sent: ${decision.ignored.join(', ')}\n`
        : '',
      exitCode: decision.approved ? 0 : 1,
    };
  } catch (err) {
    if (err instanceof PolicyCliError) return usageFailure(err.message);
    throw err;
  }
}

async function readInput(options: PolicyEvalOptions): Promise<unknown> {
  const where = options.input === '-' ? 'standard input' : options.input;
  const text =
    options.input === '-'
      ? await (options.stdin ?? readStdin)()
      : await readFile(options.input, 'utf8').catch((err: NodeJS.ErrnoException) => {
          throw new PolicyCliError(`--input ${options.input}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
        });
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new PolicyCliError(`${where}: not JSON: ${(err as Error).message}`);
  }
}

async function evaluateHere(
  raw: unknown,
  caller: CallerScope,
  options: PolicyEvalOptions,
  timeoutMs: number,
): Promise<EvalDecision> {
  const { input, scope } = policyInputOf(raw, caller, options.input === '-' ? 'standard input' : options.input);
  const dirs = manifestFolders(options.manifests ?? [], { enabled: options.builtinPack !== false });
  const open = await openEngine(dirs, { deadlineMs: timeoutMs, maxSteps: DEFAULT_MAX_STEPS });
  try {
    if (open.problems.length)
      throw new PolicyCliError(`the policies do not all load:\n  ${open.problems.join('\n  ')}`);
    const e = await open.engine.evaluate(input, scope);
    return {
      approved: e.approved,
      policies: e.triggered,
      ...(e.approved ? {} : { blockReason: e.blockReason }),
      warnings: e.warnings,
      evaluationMs: e.evaluationMs,
      evaluated: e.evaluated,
      source: 'local',
    };
  } catch (err) {
    if (err instanceof PolicyInputTooLargeError) throw new PolicyCliError(err.message);
    throw err;
  } finally {
    await open.close();
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function pretty(d: EvalDecision): string {
  const lines = [
    `decision: ${d.approved ? 'allowed' : 'blocked'}`,
    `policies: ${listOrNone(d.policies)}`,
    ...(d.approved ? [] : [`reason: ${d.blockReason ?? 'none'}`]),
    ...(d.warnings.length ? ['warnings:', ...d.warnings.map((w) => `  - ${w}`)] : ['warnings: none']),
    `time: ${Math.round(d.evaluationMs * 1000) / 1000} ms` +
      (d.evaluated ? ` (${d.evaluated.length} policies evaluated here)` : ` (gateway ${d.source})`),
  ];
  return `${lines.join('\n')}\n`;
}

function asJson(d: EvalDecision): Record<string, unknown> {
  return {
    decision: d.approved ? 'allowed' : 'blocked',
    approved: d.approved,
    policies: d.policies,
    ...(d.blockReason === undefined ? {} : { block_reason: d.blockReason }),
    warnings: d.warnings,
    evaluation_ms: d.evaluationMs,
    ...(d.evaluated ? { evaluated: d.evaluated } : {}),
    source: d.source,
  };
}
