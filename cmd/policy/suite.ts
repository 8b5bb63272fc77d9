/**
 * A policy fixture suite (`*.policytest`, docs/policy-testing.md): which Policies, and cases of one input each with
 * the decision the gateway's pre-check must reach. Parsed with the manifest loader's YAML limits; every case keeps
 * its line for the report.
 */
import { z } from 'zod';
import { parseYamlDocuments, documentValue, YamlLimitError } from '../../runtime/source/yaml.js';
import { PolicyCliError } from './errors.js';

const manifestRef = z.union([z.string().min(1), z.record(z.string(), z.unknown())]);

const expectation = z
  .object({
    decision: z.enum(['allow', 'warn', 'block']),
    /** Exactly these policies blocked or warned (in any order); `[]`: none. */
    policies: z.array(z.string()).optional(),
    /** Text the block reason contains. */
    reason: z.string().min(1).optional(),
    /** Texts that some warning contains, each. */
    warnings: z.array(z.string().min(1)).optional(),
  })
  .strict();

const suiteCase = z
  .object({
    name: z.string().min(1),
    /** The policy input document (runtime/policy/types.ts PolicyInput); `query` is required. */
    input: z.record(z.string(), z.unknown()),
    scope: z
      .object({ organization: z.string().min(1), tenant: z.string().min(1).optional() })
      .strict()
      .optional(),
    expect: expectation,
  })
  .strict();

const suiteSchema = z
  .object({
    /** A manifest file or folder (relative to the suite), an inline Policy manifest, or a list of them. */
    policy: z.union([manifestRef, z.array(manifestRef).min(1)]),
    /** Add the built-in pack, as the gateway does unless STEWARD_BUILTIN_POLICY_PACK=disabled. @default false */
    builtinPack: z.boolean().optional(),
    cases: z.array(suiteCase).min(1),
  })
  .strict();

export type SuiteExpectation = z.infer<typeof expectation>;
export type SuiteCase = z.infer<typeof suiteCase> & { line: number };

export interface Suite {
  file: string;
  /** Manifest files or folders, as written (relative to the suite's folder). */
  paths: string[];
  /** Inline manifests. */
  inline: Record<string, unknown>[];
  builtinPack: boolean;
  cases: SuiteCase[];
}

/** Parses a suite's text; a suite that is not valid is a PolicyCliError naming the file, line and field. */
export function parseSuite(file: string, text: string): Suite {
  let parsed: ReturnType<typeof parseYamlDocuments>;
  try {
    parsed = parseYamlDocuments(text);
  } catch (err) {
    throw new PolicyCliError(`${file}: ${(err as Error).message}`);
  }
  const docs = parsed.documents.filter((d) => d.contents !== null);
  if (docs.length !== 1) throw new PolicyCliError(`${file}: a suite is one YAML document, not ${docs.length}`);
  const doc = docs[0]!;
  const yamlError = doc.errors[0];
  if (yamlError) {
    const line = yamlError.linePos?.[0]?.line;
    throw new PolicyCliError(`${file}${line ? `:${line}` : ''}: ${yamlError.message.split('\n')[0]}`);
  }
  let value: unknown;
  try {
    value = documentValue(doc, parsed.lineOf);
  } catch (err) {
    if (err instanceof YamlLimitError) throw new PolicyCliError(`${file}: ${err.message}`);
    throw err;
  }
  const lineAt = (path: readonly PropertyKey[]): number | undefined => {
    const node = doc.getIn(path as unknown[], true) as { range?: [number, number, number] } | undefined;
    return node?.range ? parsed.lineOf(node.range[0]) : undefined;
  };
  const result = suiteSchema.safeParse(value);
  if (!result.success) {
    const lines = result.error.issues.map((i) => {
      const line = lineAt(i.path) ?? lineAt(i.path.slice(0, -1));
      return `${file}${line ? `:${line}` : ''}: ${i.path.join('.') || '(suite)'}: ${i.message}`;
    });
    throw new PolicyCliError(lines.join('\n'));
  }
  const refs = Array.isArray(result.data.policy) ? result.data.policy : [result.data.policy];
  const names = new Set<string>();
  const cases = result.data.cases.map((c, i) => {
    if (names.has(c.name))
      throw new PolicyCliError(`${file}:${lineAt(['cases', i])}: cases.${i}.name: "${c.name}" is used twice`);
    names.add(c.name);
    return { ...c, line: lineAt(['cases', i]) ?? 1 };
  });
  return {
    file,
    paths: refs.filter((r): r is string => typeof r === 'string'),
    inline: refs.filter((r): r is Record<string, unknown> => typeof r !== 'string'),
    builtinPack: result.data.builtinPack ?? false,
    cases,
  };
}
