import { RE2JS } from 're2js';
import { it } from 'vitest';
import { MAX_CP } from './regex-charset.js';
it('t', () => {
  let t0 = performance.now();
  const parts: string[] = [];
  for (let cp = 0; cp <= MAX_CP; cp++) if (cp < 0xd800 || cp > 0xdfff) parts.push(String.fromCodePoint(cp));
  const ALL = parts.join('');
  console.log('build', performance.now() - t0);
  for (const p of ['(?:\\d)+', '(?:(?i)[\\x{2000}-\\x{206f}\\x{4e00}-\\x{9fff}])+', '(?:(?i)[A-Za-z])+']) {
    t0 = performance.now();
    const m = RE2JS.compile(p).matcher(ALL); let n = 0;
    for (let pos = 0; m.find(pos); pos = m.end(0)) n++;
    console.log(p, n, performance.now() - t0);
  }
});
