import type { Detector } from './detector.js';
import { PII } from './pii.js';
import { SECRETS } from './secrets.js';

/**
 * Span detectors for redaction. NB: the built-in pack (config/policies/pii.yaml, secrets.yaml) exists
 * only as Rego, which answers "this text holds a US SSN" but not where; redaction needs the spans. These
 * detectors mirror the pack's patterns, checksums (Luhn, mod-97, Verhoeff, mod-23), context words and
 * placeholder rules. A change to the pack's patterns should be mirrored here; redact.test.ts measures
 * agreement with the pack's labelled corpus (runtime/policy/pack/corpus).
 * NB: these run in V8's backtracking engine on cells an attacker may have written, not in RE2 as the
 * pack does: every repetition is bounded and every pattern starts at a rare prefix or a lookbehind that
 * refuses starts inside a run, so that a cell costs time linear in its length (redact.test.ts checks
 * megabyte-sized hostile cells).
 */
export type { Detector } from './detector.js';

/** Secrets first: a URL with credentials must go whole before the email detector sees `user@host`. */
export const DETECTORS: readonly Detector[] = [...SECRETS, ...PII];
