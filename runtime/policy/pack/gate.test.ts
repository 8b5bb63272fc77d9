/**
 * Every policy of the pack runs its detectors only when a cheap `suspicious` rule holds (one or two
 * regular expressions over the text). The gate is only correct while it is a superset of the
 * detectors, so these tests evaluate the detectors WITHOUT the gate and require `suspicious` wherever
 * they find something: on the corpus, and on the corpus rewritten the ways the policies decode or
 * normalise text (case, blanks, "+", URL escapes, SQL comments, leetspeak, embedding in prose).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { PolicySet } from '../../../rego/index.js';
import { LABELS, inputFor, readCorpus, type Example, type Label } from './corpus.js';
import { loadPolicyManifests, toModules } from './index.js';

/** The ungated detector rules of each package (what deny / warn are built from). */
const DETECTORS: Record<Label, readonly string[]> = {
  pii: ['identifiers', 'contact_details'],
  sql_injection: ['findings'],
  dangerous_sql: ['findings'],
  prompt_injection: ['findings'],
  secrets: ['findings'],
};

const REWRITES: readonly [string, (s: string) => string][] = [
  ['as written', (s) => s],
  ['upper case', (s) => s.toUpperCase()],
  ['in prose', (s) => `Hello there, quick question. ${s} Thanks a lot!`],
  ['double blanks', (s) => s.replace(/ /g, '  ')],
  ['tabs', (s) => s.replace(/ /g, '\t')],
  ['form-encoded', (s) => s.replace(/ /g, '+')],
  ['URL-encoded', (s) => encodeURIComponent(s)],
  ['SQL comments', (s) => s.replace(/ /g, '/**/')],
  ['leetspeak', (s) => s.replace(/o/g, '0').replace(/e/g, '3')],
  ['zero-width', (s) => s.replace(/(\w)(\w)/, '$1\u200b$2')],
  // the engine normalizes these back (input.normalized): the gate reads the same text as the detectors
  ['full-width', (s) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0))],
  ['Cyrillic look-alikes', (s) => s.replace(/[aeopcxAEOPCX]/g, (c) => 'аеорсхАЕОРСХ'['aeopcxAEOPCX'.indexOf(c)]!)],
  [
    'Unicode dashes and digits',
    (s) => s.replace(/-/g, '\u2013').replace(/[0-9]/g, (d) => String.fromCharCode(0x660 + Number(d))),
  ],
];

let set: PolicySet;

beforeAll(async () => {
  set = PolicySet.compile(toModules(await loadPolicyManifests()));
});

function holds(label: Label, rule: string, input: unknown): boolean {
  const rows = set.prepared.query(`x := data.steward.builtin.${label}.${rule}`, { input, deadlineMs: 10_000 });
  const x = rows[0]?.x;
  if (x === true) return true;
  return x !== undefined && typeof x === 'object' && x !== null && 'size' in x && (x as { size: number }).size > 0;
}

/** The labels whose detectors fire on the example although its gate does not hold. */
function ungated(ex: Example): Label[] {
  const input = inputFor(ex);
  return LABELS.filter((l) => DETECTORS[l].some((r) => holds(l, r, input)) && !holds(l, 'suspicious', input));
}

describe('the cheap gate in front of each policy', () => {
  const corpus = readCorpus();

  it.each(REWRITES.map(([name]) => name))('holds wherever a detector fires on the corpus (%s)', (name) => {
    const rewrite = REWRITES.find(([n]) => n === name)![1];
    const missed: string[] = [];
    for (const ex of corpus) {
      const labels = ungated({ ...ex, text: rewrite(ex.text) });
      if (labels.length > 0) missed.push(`${ex.at} ${labels.join(',')} ${JSON.stringify(ex.text.slice(0, 100))}`);
    }
    expect(missed, missed.join('\n')).toEqual([]);
  });

  it('holds wherever a detector fires on the corpus sent as a chat of two messages split anywhere', () => {
    const missed: string[] = [];
    corpus.forEach((ex, i) => {
      if (ex.messages || ex.text.length < 2) return;
      const at = 1 + (i % (ex.text.length - 1));
      const labels = ungated({
        ...ex,
        messages: [
          { role: 'user', content: ex.text.slice(0, at) },
          { role: 'user', content: ex.text.slice(at) },
        ],
      });
      if (labels.length > 0) missed.push(`${ex.at} ${labels.join(',')} ${JSON.stringify(ex.text.slice(0, 100))}`);
    });
    expect(missed, missed.join('\n')).toEqual([]);
  });

  it('holds wherever a detector fires on corpus texts joined at random', () => {
    const texts = corpus.filter((e) => e.labels.length > 0).map((e) => e);
    const sep = fc.constantFrom(' ', '\n', '; ', ', and ', '+', '%20');
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...texts), sep), { minLength: 2, maxLength: 4 }), (parts) => {
        const text = parts.map(([e, s]) => e.text + s).join('');
        const ex: Example = {
          text,
          labels: [],
          note: '',
          at: 'generated',
          ...(parts[0]![0].surface ? { surface: 'mcp' as const } : {}),
        };
        expect(ungated(ex)).toEqual([]);
      }),
      { numRuns: 150, seed: 20261121 },
    );
  });

  it('lets ordinary prompts through without running any detector', () => {
    const prompts = [
      'Find me a flight from Lisbon to Berlin next Tuesday under 200 EUR and a hotel near the Spree with breakfast included.',
      'Please summarise the quarterly report for the regional sales team and list three follow-up actions.',
      'What is the weather tomorrow?',
    ];
    for (const query of prompts) {
      const input = { query, surface: 'pre-check', client_id: 'c1', user: { id: 'u1' }, context: {} };
      expect(LABELS.filter((l) => holds(l, 'suspicious', input))).toEqual([]);
    }
  });
});
