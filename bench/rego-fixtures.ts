/**
 * Benchmark fixtures: a realistic policy pack (10 modules, 40 regex checks over the prompt) and a
 * 1 KB prompt, used by bench/rego.ts.
 */
import type { PolicyModule } from '../rego/index.js';

const PATTERNS: [string, string][] = [
  ['ssn', '\\b\\d{3}-\\d{2}-\\d{4}\\b'],
  ['credit card', '\\b(?:\\d[ -]*?){13,16}\\b'],
  ['email', '[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}'],
  ['phone', '\\+?\\d{1,3}[ .-]?\\(?\\d{3}\\)?[ .-]?\\d{3}[ .-]?\\d{4}'],
  ['iban', '\\b[A-Z]{2}\\d{2}[A-Z0-9]{11,30}\\b'],
  ['aws key', 'AKIA[0-9A-Z]{16}'],
  ['private key', '-----BEGIN [A-Z ]*PRIVATE KEY-----'],
  ['github token', 'gh[pousr]_[A-Za-z0-9]{36}'],
  ['slack token', 'xox[baprs]-[A-Za-z0-9-]{10,}'],
  ['jwt', 'eyJ[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+'],
  ['drop table', '(?i)\\bdrop\\s+table\\b'],
  ['delete from', '(?i)\\bdelete\\s+from\\b'],
  ['truncate', '(?i)\\btruncate\\s+table\\b'],
  ['union select', '(?i)\\bunion\\s+(all\\s+)?select\\b'],
  ['or 1=1', "(?i)'\\s*or\\s+'?1'?\\s*=\\s*'?1"],
  ['comment injection', '--\\s*$'],
  ['sleep', '(?i)\\b(sleep|benchmark|pg_sleep)\\s*\\('],
  ['xp_cmdshell', '(?i)xp_cmdshell'],
  ['ignore previous', '(?i)ignore\\s+(all\\s+)?previous\\s+instructions'],
  ['system prompt', '(?i)(reveal|print|show)\\s+(your\\s+)?system\\s+prompt'],
  ['jailbreak', '(?i)\\b(DAN|jailbreak|developer mode)\\b'],
  ['role play', '(?i)pretend\\s+(you\\s+are|to\\s+be)'],
  ['base64 blob', '[A-Za-z0-9+/]{120,}={0,2}'],
  ['password', '(?i)password\\s*[:=]\\s*\\S+'],
  ['api key', '(?i)api[_-]?key\\s*[:=]\\s*\\S+'],
  ['bearer', '(?i)bearer\\s+[A-Za-z0-9._-]{20,}'],
  ['ipv4', '\\b(?:\\d{1,3}\\.){3}\\d{1,3}\\b'],
  ['mac', '\\b(?:[0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}\\b'],
  ['passport', '\\b[A-Z]\\d{8}\\b'],
  ['dob', '\\b(19|20)\\d{2}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])\\b'],
  ['rm rf', 'rm\\s+-rf\\s+/'],
  ['curl pipe', 'curl\\s+[^|]+\\|\\s*(ba)?sh'],
  ['chmod 777', 'chmod\\s+777'],
  ['etc passwd', '/etc/(passwd|shadow)'],
  ['exfil url', 'https?://[^\\s]+\\.(ru|cn|tk)/'],
  ['shell subst', '\\$\\([^)]+\\)'],
  ['html script', '(?i)<script\\b'],
  ['sql exec', '(?i)\\bexec(ute)?\\s+\\w+'],
  ['wire transfer', '(?i)wire\\s+transfer'],
  ['swift code', '\\b[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?\\b'],
];

/** 10 modules × 4 checks: deny for the first two checks of a module, warn for the rest. */
export function policyPack(): PolicyModule[] {
  const modules: PolicyModule[] = [];
  for (let m = 0; m < 10; m++) {
    const checks = PATTERNS.slice(m * 4, m * 4 + 4);
    const rules = checks.map(([name, re], i) => {
      const kind = i < 2 ? 'deny' : 'warn';
      return `${kind} contains ${JSON.stringify(`${name} detected`)} if regex.match(\`${re}\`, input.query)`;
    });
    modules.push({
      name: `pack-${m}.rego`,
      source: `package steward.pack${m}\n\n${rules.join('\n')}\n`,
      priority: 100 - m,
    });
  }
  return modules;
}

/** A 1 KB prompt that matches nothing (the common, fully evaluated case). */
export function prompt1k(): string {
  const base = 'Please summarise the quarterly report for the regional sales team and list three follow-up actions. ';
  let s = '';
  while (s.length < 1024) s += base;
  return s.slice(0, 1024);
}

/** A 1 KB prompt of accented prose (Spanish and French) that matches nothing: the non-ASCII normalization path. */
export function accentedPrompt1k(): string {
  const base =
    'Por favor, resume el informe trimestral del equipo de ventas y propón tres acciones. Merci de préparer la réunion. ';
  let s = '';
  while (s.length < 1024) s += base;
  return s.slice(0, 1024);
}

/** A chat of eight turns (about 1 KB) that matches nothing: the per-message texts and the joined conversation. */
export function chatInput(): {
  query: string;
  surface: 'llm';
  client_id: string;
  user: { id: string };
  context: Record<string, never>;
  llm: Record<string, unknown>;
} {
  const turns = [
    'Please summarise the quarterly report for the regional sales team.',
    'Sure. Revenue grew in the north and west regions; the south stayed flat and the east declined slightly.',
    'What were the three main reasons for the decline in the east?',
    'Fewer distributors, a delayed product launch and a price change that customers did not welcome.',
    'List three follow-up actions for the regional managers, with an owner for each.',
    'One: review the distributor contracts. Two: move the launch to the spring. Three: revisit the price change.',
    'Thanks. Write it as a short email to the team, in a friendly tone, under 150 words.',
    'Here is a draft of the email for the regional managers, with the three actions and their owners.',
  ];
  const messages = turns.map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content }));
  return {
    query: turns.join('\n'),
    surface: 'llm',
    client_id: 'bench',
    user: { id: 'u1' },
    context: {},
    llm: { provider: 'openai', model: 'gpt-4o', messages },
  };
}

export function precheckInput(query: string): Record<string, unknown> {
  return { query, surface: 'pre-check', client_id: 'bench', user: { id: 'u1', roles: ['dev'] }, context: {} };
}

/** The query every request of the gateway benchmark sends (bench/gateway.ts). */
export const GATEWAY_QUERY =
  'Find me a flight from Lisbon to Berlin next Tuesday under 200 EUR and a hotel near the Spree with breakfast included.';
