import type { LlmStreamEvent } from '../llm/index.js';
import type { UpstreamAnswer } from './types.js';

/** The upstream's answer as events: a provider's stream, or a whole answer replayed as one piece per channel. */
export interface Source {
  provider?: string;
  model?: string;
  /** a whole answer: scanned as one piece (one evaluation of the block policies) */
  whole: boolean;
  events: AsyncIterator<LlmStreamEvent>;
  facts?: Record<string, unknown>;
}

export function streamSource(stream: AsyncIterable<LlmStreamEvent> & { provider: string; model: string }): Source {
  return { provider: stream.provider, model: stream.model, whole: false, events: stream[Symbol.asyncIterator]() };
}

export function wholeSource(a: UpstreamAnswer): Source {
  const events: LlmStreamEvent[] = [];
  if (a.text !== '') events.push({ type: 'text', text: a.text });
  a.toolCalls.forEach((c, index) =>
    events.push({ type: 'tool_call', index, id: c.id, name: c.name, arguments: c.arguments }),
  );
  events.push({
    type: 'done',
    model: a.model,
    finishReason: a.finishReason,
    rawFinishReason: null,
    usage: a.usage,
    usageReported: true,
  });
  return {
    provider: a.provider,
    model: a.model,
    whole: true,
    events: events[Symbol.iterator]() as unknown as AsyncIterator<LlmStreamEvent>,
    facts: a.facts,
  };
}
