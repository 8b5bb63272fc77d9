/**
 * Enclosed digits and letters that read as ASCII ones but have no compatibility decomposition (NFKD leaves them as
 * they are): dingbat circled digits (➀ ❶ ➊), negative and double circled numbers (⓫ ⓵ ⓿), and the enclosed
 * letters of the supplement (🅐 negative circled, 🅰 negative squared). Those with a decomposition (① ⑴ ⒈ ⓐ 🄐 🄰)
 * are left to NFKD in normalize.ts; "⑴" then reads "(1)".
 * NB: a table of ranges (first code point, last, the value of the first, digits or letters), not per character.
 */
const RANGES: readonly (readonly [number, number, number, 'digit' | 'upper'])[] = [
  [0x24eb, 0x24f4, 11, 'digit'], // ⓫–⓴ negative circled 11–20
  [0x24f5, 0x24fe, 1, 'digit'], // ⓵–⓾ double circled 1–10
  [0x24ff, 0x24ff, 0, 'digit'], // ⓿ negative circled 0
  [0x2776, 0x277f, 1, 'digit'], // ❶–❿ dingbat negative circled 1–10
  [0x2780, 0x2789, 1, 'digit'], // ➀–➉ dingbat circled sans-serif 1–10
  [0x278a, 0x2793, 1, 'digit'], // ➊–➓ dingbat negative circled sans-serif 1–10
  [0x1f10b, 0x1f10b, 0, 'digit'], // 🄋 dingbat circled sans-serif 0
  [0x1f10c, 0x1f10c, 0, 'digit'], // 🄌 dingbat negative circled sans-serif 0
  [0x1f150, 0x1f169, 0, 'upper'], // 🅐–🅩 negative circled capitals
  [0x1f170, 0x1f189, 0, 'upper'], // 🅰–🆉 negative squared capitals
];

/** The ASCII a code point of the table reads as, or undefined. */
export function enclosedValue(cp: number): string | undefined {
  if (cp < 0x24eb || (cp > 0x2793 && cp < 0x1f10b) || cp > 0x1f189) return undefined;
  for (const [first, last, start, kind] of RANGES) {
    if (cp < first || cp > last) continue;
    const v = start + cp - first;
    return kind === 'digit' ? String(v) : String.fromCharCode(0x41 + v);
  }
  return undefined;
}
