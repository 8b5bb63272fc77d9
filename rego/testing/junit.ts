/**
 * `--format junit`: the JUnit XML that CI systems read. One `<testsuite>` per package (or fixture suite), one
 * `<testcase>` per test with `<failure>`, `<error>` or `<skipped/>`; counts on both levels, times in seconds.
 */
import { countResults, type TestResult } from './result.js';

const seconds = (ms: number) => (Math.max(0, ms) / 1000).toFixed(6);

/** XML-escapes text for attributes and character data; characters XML 1.0 cannot hold become U+FFFD. */
export function escapeXml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

function counts(results: readonly TestResult[], name: string): string {
  const c = countResults(results);
  const time = results.reduce((sum, r) => sum + r.durationMs, 0);
  return `name="${escapeXml(name)}" tests="${c.total}" failures="${c.fail}" errors="${c.error}" skipped="${c.skip}" time="${seconds(time)}"`;
}

function testcase(r: TestResult): string {
  const place = r.location ? ` file="${escapeXml(r.location.file)}" line="${r.location.row}"` : '';
  const open = `    <testcase classname="${escapeXml(r.package)}" name="${escapeXml(r.name)}"${place} time="${seconds(r.durationMs)}"`;
  const body: string[] = [];
  if (r.outcome === 'fail') {
    const at = r.location ? `${r.location.file}:${r.location.row}: ` : '';
    const message = r.message ?? 'not true';
    body.push(`      <failure message="${escapeXml(message)}">${escapeXml(at + message)}</failure>`);
  } else if (r.outcome === 'error') {
    const e = r.error ?? { code: 'internal_error', message: 'error' };
    body.push(
      `      <error type="${escapeXml(e.code)}" message="${escapeXml(e.message)}">${escapeXml(e.message)}</error>`,
    );
  } else if (r.outcome === 'skip') {
    body.push('      <skipped/>');
  }
  if (r.output?.length) body.push(`      <system-out>${escapeXml(r.output.join('\n'))}</system-out>`);
  return body.length ? `${open}>\n${body.join('\n')}\n    </testcase>` : `${open}/>`;
}

/** The whole run as one `<testsuites>` document. */
export function formatJunit(results: readonly TestResult[], name = 'steward policy test'): string {
  const byPackage = new Map<string, TestResult[]>();
  for (const r of results) {
    const list = byPackage.get(r.package);
    if (list) list.push(r);
    else byPackage.set(r.package, [r]);
  }
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites ${counts(results, name)}>`];
  for (const [pkg, list] of byPackage) {
    lines.push(`  <testsuite ${counts(list, pkg)}>`);
    for (const r of list) lines.push(testcase(r));
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}
