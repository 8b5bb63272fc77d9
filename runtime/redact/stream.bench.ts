/**
 * Cost of streaming redaction per SSE piece (`npx vitest bench --run runtime/redact/stream.bench.ts`): a typical answer
 * in 4-character pieces (about one token each), with every detector. No assertion: figures only.
 */
import { bench, describe } from 'vitest';
import { redactText } from './redact.js';
import { StreamRedactor } from './stream.js';

const ANSWER =
  'Sure. To rotate the database credentials, open the console, choose Settings, then Security, and create a new key. ' +
  'Update the deployment with the new value, restart the workers, and revoke the old key after an hour. Your card ' +
  '4111 1111 1111 1111 is on file and the ticket was sent to jane.doe@corp.io. Let me know if you need anything else! ';
const TEXT = ANSWER.repeat(4);
const PIECES: string[] = [];
for (let i = 0; i < TEXT.length; i += 4) PIECES.push(TEXT.slice(i, i + 4));

describe(`a ${TEXT.length}-character answer in ${PIECES.length} pieces`, () => {
  bench('StreamRedactor.push per piece, then end()', () => {
    const r = new StreamRedactor();
    for (const p of PIECES) r.push(p);
    r.end();
  });
  bench('first piece only (time to first token)', () => {
    new StreamRedactor().push(PIECES[0]!);
  });
  bench('redactText on the whole answer (for comparison)', () => {
    redactText(TEXT, {});
  });
});
