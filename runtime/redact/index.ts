/**
 * Redaction of PII and secrets by span detectors that mirror the built-in pack (config/policies/pii.yaml,
 * secrets.yaml): whole values (connector rows and tool results, `redactValue`) and streams (LLM answers,
 * `StreamRedactor`). Shared by runtime/connectors and the gateway's output scan.
 */
export { DETECTORS, type Detector } from './detectors.js';
export { redactText, redactValue, type RedactionCounts } from './redact.js';
export { redactSpans, render, type RedactedSpan } from './spans.js';
export { detectorsOf, STREAM_WINDOW_CHARS, StreamRedactor, windowChars, type StreamRedactorOptions } from './stream.js';
