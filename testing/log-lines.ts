/**
 * Keys repeated inside one JSON object of a log line. `JSON.parse` keeps the last of repeated keys silently, so a
 * line like `{"component":"gateway","component":"policies"}` needs this scanner to be caught.
 */
export function repeatedKeys(line: string): string[] {
  let i = 0;
  const repeated: string[] = [];
  const space = () => {
    while (i < line.length && /\s/.test(line[i]!)) i++;
  };
  const string = (): string => {
    let j = i + 1;
    while (line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
    const s = JSON.parse(line.slice(i, j + 1)) as string;
    i = j + 1;
    return s;
  };
  const value = (): void => {
    space();
    const c = line[i];
    if (c === '{' || c === '[') {
      const object = c === '{';
      const keys = new Set<string>();
      i++;
      space();
      if (line[i] === (object ? '}' : ']')) return void i++;
      for (;;) {
        space();
        if (object) {
          const key = string();
          if (keys.has(key)) repeated.push(key);
          keys.add(key);
          space();
          i++; // ':'
        }
        value();
        space();
        if (line[i++] !== ',') return;
      }
    }
    if (c === '"') return void string();
    while (i < line.length && !/[,\]}\s]/.test(line[i]!)) i++;
  };
  JSON.parse(line); // a line that is not JSON fails here, with JSON's own message
  value();
  return repeated;
}
