/**
 * SQL guard corpus: statements labelled benign or hostile, per dialect ('postgresql', 'mysql', or
 * 'both'). sql/corpus.test.ts asserts that every hostile statement is refused, every benign one is
 * allowed, and that each allowed statement runs on the real server (inside a rolled-back transaction)
 * against the fixture tables `customers` and `orders` (see corpus.test.ts). The guard is a read-only
 * connector's, with the entry's `allowedTables` when it has one. The lists live beside this file, by
 * category (kept out of the build and the image).
 */
import { BENIGN } from './benign.js';
import type { CorpusEntry } from './entry.js';
import { HOSTILE_FUNCTIONS } from './hostile-functions.js';
import { HOSTILE_STATEMENTS } from './hostile-statements.js';
import { HOSTILE_TABLES } from './hostile-tables.js';

export type { CorpusDialect, CorpusEntry } from './entry.js';
export { BENIGN };

export const HOSTILE: readonly CorpusEntry[] = [...HOSTILE_STATEMENTS, ...HOSTILE_FUNCTIONS, ...HOSTILE_TABLES];

export const CORPUS: readonly CorpusEntry[] = [...BENIGN, ...HOSTILE];
