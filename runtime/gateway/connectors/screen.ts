import type { DescriptionScreen } from '../../connectors/pins/pins.js';
import { MCP_TOOL_REQUEST_TYPE } from '../../policy/caller.js';
import type { PolicyEvaluator } from '../../policy/types.js';
import type { DeclarativeSource } from '../../source/index.js';

/**
 * The prompt-injection screen of MCP tool descriptions, run when a definition is first seen (docs/connectors.md,
 * Pinned tool definitions): the description is evaluated as the `query` of an `mcp` input with `phase: "describe"`,
 * and the first enforced `prompt_injection` policy that blocks it flags it. Other policies' answers do not count:
 * a description may well mention an SQL statement or an e-mail address. An input over the policy size limit throws,
 * which the pins count as flagged.
 */
export function descriptionScreen(policies: PolicyEvaluator, source: DeclarativeSource): DescriptionScreen {
  return async (tool) => {
    const evaluation = await policies.evaluate(
      {
        query: tool.description,
        surface: 'mcp',
        request_type: MCP_TOOL_REQUEST_TYPE,
        user: { id: '' },
        context: {},
        mcp: { type: 'mcp', operation: tool.name, tool: tool.name, phase: 'describe' },
      },
      { surface: 'mcp' },
    );
    const detectors = new Set(
      source
        .list('Policy')
        .filter((p) => (p.spec as { type?: unknown }).type === 'prompt_injection')
        .map((p) => p.metadata.name),
    );
    return evaluation.results.find((r) => r.decision === 'block' && detectors.has(r.policy))?.policy;
  };
}
