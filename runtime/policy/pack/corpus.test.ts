import { beforeAll, describe, expect, it } from 'vitest';
import { PolicySet } from '../../../rego/index.js';
import { LABELS, POLICY_BY_LABEL, measure, readCorpus, scoreTable, type Label, type Score } from './corpus.js';
import { loadBuiltinPack } from './index.js';

const TARGET_RECALL = 0.98;
const TARGET_FALSE_POSITIVE_RATE = 0.02;

describe('built-in pack accuracy on the labelled corpus', () => {
  const corpus = readCorpus();
  let scores: Record<Label, Score>;

  beforeAll(async () => {
    const set: PolicySet = await loadBuiltinPack();
    scores = measure(set, corpus);
    console.log(`\n${scoreTable(scores)}\n`);
  });

  it('holds at least 300 positive and 300 negative examples', () => {
    expect(corpus.filter((e) => e.labels.length > 0).length).toBeGreaterThanOrEqual(300);
    expect(corpus.filter((e) => e.labels.length === 0).length).toBeGreaterThanOrEqual(300);
  });

  it.each(LABELS)('labels enough positives for %s to measure recall at 2%%', (label) => {
    expect(corpus.filter((e) => e.labels.includes(label)).length).toBeGreaterThanOrEqual(50);
  });

  it.each(LABELS)(`%s reaches recall >= ${TARGET_RECALL}`, (label) => {
    const s = scores[label];
    expect(s.recall, s.errors.filter((e) => e.startsWith('FN')).join('\n')).toBeGreaterThanOrEqual(TARGET_RECALL);
  });

  it.each(LABELS)(`%s keeps the false-positive rate <= ${TARGET_FALSE_POSITIVE_RATE}`, (label) => {
    const s = scores[label];
    expect(s.falsePositiveRate, s.errors.filter((e) => e.startsWith('FP')).join('\n')).toBeLessThanOrEqual(
      TARGET_FALSE_POSITIVE_RATE,
    );
  });
});

describe('the measurement itself', () => {
  const corpus = readCorpus();
  const stubPack = (rule: string) =>
    PolicySet.compile(
      LABELS.map((l) => ({ name: POLICY_BY_LABEL[l], source: `package steward.builtin.${l}\n\n${rule}\n` })),
    );

  it('scores a pack that finds nothing at recall 0 and no false positives', () => {
    const s = measure(stubPack('deny contains "x" if false'), corpus);
    for (const l of LABELS) expect([s[l].recall, s[l].falsePositiveRate]).toEqual([0, 0]);
  });

  it('scores a pack that flags everything at a false-positive rate of 1', () => {
    const s = measure(stubPack('warn contains "x" if true'), corpus);
    for (const l of LABELS) expect([s[l].recall, s[l].falsePositiveRate]).toEqual([1, 1]);
  });
});
