import { describe, expect, it } from 'vitest';
import { LogStore, tail } from './logs.js';

describe('container logs', () => {
  it.each([
    { name: 'keeps the last lines with their newline', text: 'a\nb\nc\n', lines: 2, want: 'b\nc\n' },
    { name: 'keeps a last line without newline', text: 'a\nb\nc', lines: 1, want: 'c' },
    { name: 'gives everything when asked for more lines than there are', text: 'a\n', lines: 5, want: 'a\n' },
    { name: 'gives nothing for zero lines', text: 'a\n', lines: 0, want: '' },
  ])('$name', ({ text, lines, want }) => {
    expect(tail(text, lines)).toBe(want);
  });

  it('keeps the previous run and streams the current one to followers until it stops', () => {
    const logs = new LogStore();
    logs.started('ns', 'p', 'c');
    logs.append('ns', 'p', 'c', 'first run\n');
    logs.stopped('ns', 'p', 'c');
    logs.started('ns', 'p', 'c');
    const seen: string[] = [];
    let ended = false;
    logs.follow('ns', 'p', 'c', { data: (t) => seen.push(t), end: () => (ended = true) });
    logs.append('ns', 'p', 'c', 'second run\n');
    expect(seen).toEqual(['second run\n']);
    expect(logs.read('ns', 'p', 'c', { previous: true })).toBe('first run\n');
    expect(logs.read('ns', 'p', 'c', {})).toBe('second run\n');
    logs.stopped('ns', 'p', 'c');
    expect(ended).toBe(true);
  });

  it('has no logs for a container that never started, and no previous logs for a first run', () => {
    const logs = new LogStore();
    expect(logs.read('ns', 'p', 'c', {})).toBeUndefined();
    logs.started('ns', 'p', 'c');
    expect(logs.read('ns', 'p', 'c', { previous: true })).toBeUndefined();
  });
});
