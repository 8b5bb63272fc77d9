// Re-run of the earlier security review's attacks against a real standalone Steward (see README.md here).
//
//   node_modules/.bin/node test/security/rerun/attacks.mjs [licensed|fairness|community|all]
//
// Needs: PostgreSQL 127.0.0.1:5432 (postgres, trust) with database `attack`, MariaDB 127.0.0.1:3306 (root) with
// database `attack`, and a private MariaDB on 127.0.0.1:3307 started with sql_mode NO_BACKSLASH_ESCAPES,ANSI_QUOTES
// holding database `attack` (README.md says how). Every request goes to 127.0.0.1 or ::1.
import { writeFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  GW,
  OR,
  WORK,
  holeSockets,
  RECEIVER_PORT,
  BLACKHOLE_PORT,
  TRICKLE_PORT,
  REDIRECTS,
  appHits,
  receiverHits,
  call,
  codeOf,
  reasonOf,
  rawRequest,
  record,
  results,
  leaked,
  licenseKey,
  writeManifests,
  startSteward,
  stopSteward,
  startServers,
  stopServers,
  sleep,
  stewardLog,
} from './lib.mjs';

const which = process.argv[2] ?? 'all';
mkdirSync(WORK, { recursive: true });

const PG_URL = 'postgres://postgres@127.0.0.1:5432/attack';
const MY_URL = 'mysql://root@127.0.0.1:3306/attack';
const MY_NBE_URL = 'mysql://root@127.0.0.1:3307/attack';

// ------------------------------------------------------------------------------------------------ manifests

function licenseDoc(name, env) {
  return `apiVersion: steward.dev/v1alpha1\nkind: License\nmetadata: { name: ${name} }\nspec: { organizationId: ${name}, keyFromEnv: ${env} }\n---\n`;
}

function connectorDoc(name, type, env, orgs, options) {
  return `apiVersion: steward.dev/v1alpha1
kind: Connector
metadata: { name: ${name} }
spec:
  type: ${type}
  connection: { fromEnv: ${env} }
  allowedOperations: [query, request]
  organizations: ${JSON.stringify(orgs)}
  healthCheck: { intervalSeconds: 3600, timeoutMs: 2000 }
  options: ${JSON.stringify(options)}
---
`;
}

/** http connectors whose host is a spelling of this machine: without allowedCidrs every one must be refused. */
const SPELLINGS = [
  ['ssrf-localhost', 'http://localhost:18090/api', []],
  ['ssrf-upper', 'http://LOCALHOST:18090/api', []],
  ['ssrf-vm', 'http://vm:18090/api', []],
  ['ssrf-runsc', 'http://runsc:18090/api', []],
  ['ssrf-dec', 'http://2130706433:18090/api', []],
  ['ssrf-hex', 'http://0x7f.1:18090/api', []],
  ['ssrf-oct', 'http://0177.0.0.1:18090/api', []],
  ['ssrf-short', 'http://127.1:18090/api', []],
  ['ssrf-lo2', 'http://127.0.0.2:18090/api', []],
  ['ssrf-zero', 'http://0.0.0.0:18090/api', []],
  ['ssrf-zero2', 'http://0:18090/api', []],
  ['ssrf-v6lo', 'http://[::1]:18090/api', []],
  ['ssrf-v6unspec', 'http://[::]:18090/api', []],
  ['ssrf-mapped', 'http://[::ffff:127.0.0.1]:18090/api', []],
  ['ssrf-mapped-hex', 'http://[::ffff:7f00:1]:18090/api', []],
  ['ssrf-mapped-long', 'http://[0:0:0:0:0:ffff:7f00:1]:18090/api', []],
  ['ssrf-mapped-zero', 'http://[::ffff:0.0.0.0]:18090/api', []],
  ['ssrf-fullwidth', 'http://１２７.０.０.１:18090/api', []],
  ['ssrf-pct-host', 'http://%31%32%37.0.0.1:18090/api', []],
  // allowedCidrs: 127.0.0.1/32 lets the same address through in its IPv4-mapped spelling (expected), not others
  ['cidr4-mapped', 'http://[::ffff:127.0.0.1]:18090/api', ['127.0.0.1/32']],
  ['cidr4-v6lo', 'http://[::1]:18090/api', ['127.0.0.1/32']],
  ['cidr4-lo2', 'http://127.0.0.2:18090/api', ['127.0.0.1/32']],
  // docs: "an allowed IPv6 network still does not reach a special IPv4 address it carries unless that IPv4 network is listed too"
  ['cidr6all-mapped', 'http://[::ffff:127.0.0.1]:18090/api', ['::/0']],
  ['cidr6all-v6lo', 'http://[::1]:18090/api', ['::/0']],
  ['cidrmapped-mapped', 'http://[::ffff:127.0.0.1]:18090/api', ['::ffff:0:0/96']],
];

function licensedManifests(extra = '') {
  let y = licenseDoc('org-a', 'RERUN_KEY_A') + licenseDoc('org-b', 'RERUN_KEY_B');
  y += connectorDoc('pg-a', 'postgres', 'RERUN_PG_URL', ['org-a'], {
    readOnly: true,
    allowedTables: ['orders'],
    maxRows: 100,
    timeoutMs: 5000,
  });
  y += connectorDoc('pg-b', 'postgres', 'RERUN_PG_URL', ['org-b'], {
    readOnly: true,
    allowedTables: ['secrets'],
    maxRows: 100,
  });
  y += connectorDoc('my-a', 'mysql', 'RERUN_MY_URL', ['org-a'], {
    readOnly: true,
    allowedTables: ['orders'],
    maxRows: 100,
    timeoutMs: 5000,
  });
  y += connectorDoc('my-nbe', 'mysql', 'RERUN_MY_NBE_URL', ['org-a'], {
    readOnly: true,
    allowedTables: ['orders'],
    maxRows: 100,
    poolMax: 10,
  });
  y += connectorDoc('http-a', 'http', 'RERUN_HTTP_URL', ['org-a'], {
    readOnly: true,
    allowedCidrs: ['127.0.0.1/32'],
    maxRedirects: 5,
    healthPath: '/ok',
  });
  SPELLINGS.forEach(([name, , cidrs], i) => {
    y += connectorDoc(name, 'http', `RERUN_SSRF_${i}`, ['org-a'], {
      readOnly: true,
      allowedCidrs: cidrs,
      healthPath: '/ok',
    });
  });
  return y + extra;
}

const spellingEnv = () => Object.fromEntries(SPELLINGS.map(([, url], i) => [`RERUN_SSRF_${i}`, url]));

// ------------------------------------------------------------------------------------------------ helpers

const lic = (key) => ({ 'x-license-key': key });
const bearer = (k) => ({ authorization: `Bearer ${k}` });

async function mcpQuery(cred, connector, statement, params, options) {
  return call('POST', `${GW}/mcp/resources/query`, {
    headers: cred,
    body: { connector, statement, ...(params ? { params } : {}), ...(options ? { options } : {}) },
  });
}

/** Runs one statement and records refused / allowed / LEAKED. `extraMarkers` flag data this variant must not see. */
async function sqlAttack(
  attack,
  variant,
  cred,
  connector,
  statement,
  { params, extraMarkers = [], options, expectAllowed = false, anySuccessLeaks = false } = {},
) {
  const r = await mcpQuery(cred, connector, statement, params, options);
  const hit = leaked(r.text, extraMarkers) ?? (anySuccessLeaks && r.status === 200 ? 'server information' : undefined);
  if (r.status === 200 && hit)
    return record(attack, variant, r.status, '', 'LEAKED', `${hit}: ${r.text.slice(0, 200)}`);
  if (r.status === 200)
    return record(
      attack,
      variant,
      r.status,
      '',
      expectAllowed ? 'allowed' : 'allowed, no leak',
      JSON.stringify(r.body?.data ?? '').slice(0, 160),
    );
  if (hit)
    return record(attack, variant, r.status, codeOf(r), 'LEAKED', `in an error: ${hit}: ${r.text.slice(0, 200)}`);
  return record(
    attack,
    variant,
    r.status,
    `${codeOf(r)}${reasonOf(r) ? `/${reasonOf(r)}` : ''}`,
    'refused',
    (r.body?.error ?? r.error ?? '').toString().slice(0, 140),
  );
}

async function preCheck(cred, query, extraHeaders = {}) {
  return call('POST', `${GW}/api/policy/pre-check`, {
    headers: { ...cred, ...extraHeaders },
    body: { client_id: 'rerun', user_token: 'u', query },
  });
}

async function createClient(licKey, name, tenant) {
  const r = await call('POST', `${GW}/api/clients`, {
    headers: { ...lic(licKey), ...(tenant ? { 'x-tenant-id': tenant } : {}) },
    body: { name },
  });
  if (r.status !== 201 && r.status !== 200) throw new Error(`client ${name}: ${r.status} ${r.text}`);
  return r.body;
}

async function runPlan(cred, query = 'summarize the quarterly numbers', extra = {}) {
  return call('POST', `${OR}/api/v1/plan`, {
    headers: { ...cred, ...extra },
    body: { query, domain: 'generic', execution_mode: 'auto' },
    timeoutMs: 60000,
  });
}

// ================================================================================================ licensed run

async function licensedRun() {
  const keyA = licenseKey('ENT');
  const keyB = licenseKey('ENT');
  const dir = join(WORK, 'licensed');
  rmSync(dir, { recursive: true, force: true });
  writeManifests(join(dir, 'manifests'), licensedManifests());
  const env = {
    STEWARD_DATA_DIR: join(dir, 'data'),
    STEWARD_MANIFESTS: join(dir, 'manifests'),
    STEWARD_BUILTIN_POLICY_PACK: 'disabled',
    STEWARD_LICENSE_SIGNING_SECRET: 'rerun-signing-secret-0123456789abcdef',
    RERUN_KEY_A: keyA,
    RERUN_KEY_B: keyB,
    RERUN_PG_URL: PG_URL,
    RERUN_MY_URL: MY_URL,
    RERUN_MY_NBE_URL: MY_NBE_URL,
    RERUN_HTTP_URL: 'http://127.0.0.1:18090/api',
    STEWARD_WEBHOOK_TIMEOUT_MS: '2000',
    STEWARD_WEBHOOK_RETRY_BASE_MS: '500',
    STEWARD_WEBHOOK_MAX_ATTEMPTS: '2',
    ...spellingEnv(),
  };
  await startSteward(env, { label: 'licensed' });
  const A = lic(keyA);
  const B = lic(keyB);
  const KA = await createClient(keyA, 'a-org-wide');
  const K9 = await createClient(keyA, 'a-tenant-t9', 't9');
  const K1 = await createClient(keyA, 'a-tenant-t1', 't1');
  const KB = await createClient(keyB, 'b-org-wide');
  const KB9 = await createClient(keyB, 'b-tenant-t9', 't9');
  const ctx = { keyA, keyB, A, B, KA, K9, K1, KB, KB9, env, dir };

  await attack1(ctx);
  await attack2(ctx);
  await attack10(ctx);
  await attack13(ctx);
  await attack11(ctx);
  await attack8(ctx);
  await attack9(ctx);
  await attack3(ctx);
  await attack4(ctx);
  await attack6(ctx);
  await attack12(ctx);
  await isolation(ctx);
  await headers(ctx);
  await limits(ctx);
  await packageCollision(ctx);
  await stopSteward();
}

// ------------------------------------------------------------------------------------------------ 1: CTE shadowing

async function attack1({ A }) {
  const T = '1 CTE shadowing';
  const pg = [
    ['pg exact: EXISTS (WITH secrets ...)', 'SELECT * FROM secrets WHERE EXISTS (WITH secrets AS (SELECT 1) SELECT 1)'],
    ['pg exact: nested WITH in CTE', 'WITH x AS (WITH secrets AS (SELECT 1) SELECT 1) SELECT * FROM secrets'],
    ['pg exact: pg_shadow EXISTS', 'SELECT * FROM pg_shadow WHERE EXISTS (WITH pg_shadow AS (SELECT 1) SELECT 1)'],
    ['pg exact: pg_shadow nested', 'WITH x AS (WITH pg_shadow AS (SELECT 1) SELECT 1) SELECT * FROM pg_shadow'],
    ['pg: non-recursive self reference', 'WITH secrets AS (SELECT * FROM secrets) SELECT * FROM secrets'],
    ['pg: CTE named like the allowed table', 'WITH orders AS (SELECT * FROM secrets) SELECT * FROM orders'],
    [
      'pg: RECURSIVE CTE named orders over secrets',
      'WITH RECURSIVE orders AS (SELECT * FROM secrets) SELECT * FROM orders',
    ],
    [
      'pg: parenthesised WITH then UNION',
      "(WITH secrets AS (SELECT 1 AS id, 'x' AS secret) SELECT * FROM secrets) UNION ALL SELECT * FROM secrets",
    ],
    ['pg: CTE in derived table, table outside', 'SELECT * FROM (WITH secrets AS (SELECT 1) SELECT 1) x, secrets'],
    [
      'pg: CTE in LATERAL, table outside',
      'SELECT * FROM orders, LATERAL (WITH secrets AS (SELECT 1) SELECT * FROM secrets) z, secrets',
    ],
    [
      'pg: CTE in IN-subquery then UNION table',
      'SELECT id, note FROM orders WHERE id IN (WITH secrets AS (SELECT 1) SELECT * FROM secrets) UNION SELECT id, secret FROM secrets',
    ],
    ['pg: CTE but schema-qualified table', 'WITH secrets AS (SELECT 1) SELECT * FROM public.secrets'],
    ['pg: quoted CTE name "Secrets"', 'WITH "Secrets" AS (SELECT 1) SELECT * FROM secrets'],
    [
      'pg: RECURSIVE forward reference (server: CTE)',
      "WITH RECURSIVE a AS (SELECT * FROM secrets), secrets AS (SELECT 1 AS id, 'cte' AS secret) SELECT * FROM a",
    ],
    [
      'pg: non-recursive forward reference (server: table)',
      "WITH a AS (SELECT * FROM secrets), secrets AS (SELECT 1 AS id, 'cte' AS secret) SELECT * FROM a",
    ],
    [
      'pg: EXPLAIN of the exact attack',
      'EXPLAIN SELECT * FROM secrets WHERE EXISTS (WITH secrets AS (SELECT 1) SELECT 1)',
    ],
    ['pg: CTE shadows pg_shadow (server: CTE)', 'WITH pg_shadow AS (SELECT 1 AS x) SELECT * FROM pg_shadow'],
    [
      'pg: scalar subquery with inner CTE',
      'SELECT (SELECT secret FROM secrets WHERE EXISTS (WITH secrets AS (SELECT 1) SELECT 1) LIMIT 1)',
    ],
  ];
  for (const [v, s] of pg)
    await sqlAttack(T, v, A, 'pg-a', s, { extraMarkers: ['rolpassword', 'SCRAM-SHA', '"usename"'] });
  const my = [
    [
      'mysql exact: EXISTS (WITH secrets ...)',
      'SELECT * FROM secrets WHERE EXISTS (WITH secrets AS (SELECT 1) SELECT 1)',
    ],
    ['mysql exact: nested WITH in CTE', 'WITH x AS (WITH secrets AS (SELECT 1) SELECT 1) SELECT * FROM secrets'],
    ['mysql: backticked CTE', 'SELECT * FROM `secrets` WHERE EXISTS (WITH `secrets` AS (SELECT 1) SELECT 1)'],
    ['mysql: self reference', 'WITH secrets AS (SELECT * FROM secrets) SELECT * FROM secrets'],
    ['mysql: CTE named orders over secrets', 'WITH orders AS (SELECT * FROM secrets) SELECT * FROM orders'],
    ['mysql: CTE upper-case name (MariaDB: any case)', 'WITH SECRETS AS (SELECT 1, 2) SELECT * FROM secrets'],
    [
      'mysql: WITH then UNION (both CTE for server)',
      "WITH secrets AS (SELECT 1 AS id, 'cte' AS s) SELECT * FROM secrets UNION SELECT * FROM secrets",
    ],
    [
      'mysql: WITH then UNION (parenthesised member)',
      "WITH secrets AS (SELECT 1 AS id, 'cte' AS s) SELECT * FROM secrets UNION (SELECT * FROM secrets)",
    ],
    [
      'mysql: parenthesised WITH then UNION table',
      "(WITH secrets AS (SELECT 1 AS id, 'cte' AS s) SELECT * FROM secrets) UNION SELECT * FROM secrets",
    ],
    [
      'mysql: RECURSIVE forward ref',
      "WITH RECURSIVE a AS (SELECT * FROM secrets), secrets AS (SELECT 1 AS id, 'cte' AS s) SELECT * FROM a",
    ],
    ['mysql: CTE with db-qualified table', 'WITH secrets AS (SELECT 1) SELECT * FROM attack.secrets'],
    ['mysql: derived table CTE, table outside', 'SELECT * FROM (WITH secrets AS (SELECT 1) SELECT 1) x, secrets'],
    ['mysql: mysql.user behind CTE', 'SELECT * FROM mysql.user WHERE EXISTS (WITH user AS (SELECT 1) SELECT 1)'],
  ];
  for (const [v, s] of my) await sqlAttack(T, v, A, 'my-a', s, { extraMarkers: ['mysql_native_password', '"Host":'] });
  // the same attack through Steward's MCP server (tools/call), which shares the governed path
  for (const [tool, stmt] of [
    ['pg_a__query', pg[0][1]],
    ['my_a__query', my[0][1]],
  ]) {
    const r = await call('POST', `${GW}/mcp`, {
      headers: { ...A, accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: { statement: stmt } } },
    });
    const hit = leaked(r.text);
    record(
      T,
      `via POST /mcp tools/call ${tool}: exact attack`,
      r.status,
      (/"code":"([A-Z_]+)"/.exec(r.text) ?? [])[1] ?? '',
      hit ? 'LEAKED' : 'refused',
      r.text.slice(0, 120),
    );
  }
}

// ------------------------------------------------------------------------------------------------ 2: functions

async function attack2({ A }) {
  const T = '2 SQL-text/file/catalog functions';
  const pg = [
    ['pg exact: ts_stat', "SELECT * FROM ts_stat('SELECT to_tsvector(secret) FROM secrets')"],
    ['pg exact: query_to_xml', "SELECT query_to_xml('SELECT * FROM secrets', true, true, '')"],
    ['pg: pg_catalog.query_to_xml', "SELECT pg_catalog.query_to_xml('SELECT * FROM secrets', true, true, '')"],
    ['pg: "QUERY_TO_XML" quoted upper', `SELECT "QUERY_TO_XML"('SELECT * FROM secrets', true, true, '')`],
    ['pg: query_to_xmlschema', "SELECT query_to_xml_and_xmlschema('SELECT * FROM secrets', true, true, '')"],
    ['pg: table_to_xml', "SELECT table_to_xml('secrets', true, true, '')"],
    ['pg: database_to_xml', "SELECT database_to_xml(true, true, '')"],
    [
      'pg: ts_rewrite with query text',
      "SELECT ts_rewrite(to_tsquery('a'), 'SELECT to_tsquery(secret), to_tsquery(secret) FROM secrets')",
    ],
    ['pg: xpath over xml cast', "SELECT xpath('/x', CAST('<x>1</x>' AS xml))"],
    [
      'pg: XXE via xml cast',
      `SELECT CAST(CAST('<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>' AS xml) AS text)`,
      ['root:x:0'],
    ],
    ['pg: pg_read_file', "SELECT pg_read_file('/etc/passwd')", ['root:x:0']],
    ['pg: pg_read_binary_file', "SELECT pg_read_binary_file('/etc/passwd')"],
    ['pg: pg_ls_dir', "SELECT pg_ls_dir('.')"],
    ['pg: lo_import', "SELECT lo_import('/etc/passwd')"],
    ['pg: dblink', "SELECT * FROM dblink('dbname=attack', 'SELECT secret FROM secrets') AS t(s text)"],
    ['pg: current_setting', "SELECT current_setting('data_directory')"],
    ['pg: version()', 'SELECT version()'],
    ['pg: current_user keyword', 'SELECT current_user AS u'],
    ['pg: user in WHERE (oracle)', "SELECT id FROM orders WHERE user = 'postgres'"],
    ['pg: pg_settings table', 'SELECT * FROM pg_settings'],
    ['pg: pg_stats (column statistics of secrets)', "SELECT * FROM pg_stats WHERE tablename = 'secrets'"],
    ['pg: SHOW', 'SHOW data_directory'],
    ['pg: COPY TO PROGRAM', "COPY orders TO PROGRAM 'id'"],
    ['pg: to_regclass', "SELECT to_regclass('secrets')"],
    ['pg: has_table_privilege', "SELECT has_table_privilege('secrets', 'select')"],
    ['pg: format() with subquery', "SELECT format('%s', (SELECT secret FROM secrets LIMIT 1))"],
    ['pg: row_to_json over secrets', 'SELECT row_to_json(s) FROM secrets s'],
    ['pg: jsonb_path_query (allowed, pure)', "SELECT jsonb_path_query(CAST('{\"a\":1}' AS jsonb), '$.a')"],
    // catalogue reads through reg* casts (no function call at all)
    [
      'pg: regclass cast enumerates relations',
      "SELECT CAST(CAST(g AS oid) AS regclass) AS rel FROM generate_series(16384, 100000) g WHERE CAST(CAST(CAST(g AS oid) AS regclass) AS text) !~ '^[0-9]+$'",
      ['"rel":"secrets"'],
    ],
    [
      'pg: regtype cast enumerates row types',
      "SELECT CAST(CAST(g AS oid) AS regtype) AS t FROM generate_series(16384, 100000) g WHERE CAST(CAST(CAST(g AS oid) AS regtype) AS text) !~ '^[0-9]+$'",
      ['"t":"secrets"'],
    ],
    ['pg: regrole cast reads role name', 'SELECT CAST(CAST(10 AS oid) AS regrole) AS role', ['"role":"postgres"']],
    ['pg: regclass probe of pg_authid', "SELECT CAST('pg_authid' AS regclass) AS r", ['"r":"pg_authid"']],
    [
      'pg: regnamespace enumerates schemas',
      'SELECT CAST(CAST(g AS oid) AS regnamespace) AS ns FROM generate_series(2200, 2200) g',
      ['"ns":"public"'],
    ],
    [
      'pg: regproc cast reads function names',
      'SELECT CAST(CAST(g AS oid) AS regproc) AS p FROM generate_series(1240, 1242) g',
      ['"p":"'],
    ],
    [
      'pg: DoS generate_series (timeout 2s asked)',
      'SELECT count(*) FROM generate_series(1, 100000000000) g',
      [],
      { timeoutMs: 2000 },
    ],
    ['pg: DoS repeat 1e9', "SELECT length(repeat('x', 1000000000))", [], { timeoutMs: 3000 }],
  ];
  for (const [v, s, m = [], options] of pg) await sqlAttack(T, v, A, 'pg-a', s, { extraMarkers: m, options });
  const my = [
    ['mysql: LOAD_FILE', "SELECT LOAD_FILE('/etc/passwd')", ['root:x:0']],
    ['mysql: `load_file` quoted', "SELECT `load_file`('/etc/passwd')", ['root:x:0']],
    ['mysql: EXTRACTVALUE subquery', "SELECT EXTRACTVALUE('<a/>', CONCAT('/a', (SELECT secret FROM secrets LIMIT 1)))"],
    [
      'mysql: UPDATEXML error channel',
      "SELECT UPDATEXML('<a/>', CONCAT('/', (SELECT secret FROM secrets LIMIT 1)), 'x')",
    ],
    [
      'mysql: JSON_EXTRACT over subquery',
      "SELECT JSON_EXTRACT((SELECT JSON_OBJECT('s', secret) FROM secrets LIMIT 1), '$.s')",
    ],
    ['mysql: JSON_TABLE', "SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (a INT PATH '$')) t"],
    ['mysql: SELECT INTO OUTFILE', "SELECT * FROM orders INTO OUTFILE '/tmp/stw-rerun-outfile'"],
    ['mysql: mysql.user', 'SELECT * FROM mysql.user'],
    ['mysql: information_schema', 'SELECT * FROM information_schema.tables'],
    ['mysql: SHOW TABLES', 'SHOW TABLES'],
    ['mysql: stored function attack.f()', 'SELECT attack.f()'],
    ['mysql: sys.version_major()', 'SELECT sys.version_major()'],
    ['mysql: BENCHMARK', "SELECT BENCHMARK(100000000, MD5('a'))"],
    ['mysql: SLEEP', 'SELECT SLEEP(5)'],
    ['mysql: executable comment', 'SELECT id FROM orders /*!UNION SELECT secret FROM secrets*/'],
    ['mysql: MariaDB executable comment', 'SELECT id FROM orders /*M!100000 UNION SELECT secret FROM secrets*/'],
    ['mysql: SET STATEMENT ... FOR', 'SET STATEMENT max_statement_time=1 FOR SELECT * FROM secrets'],
    [
      'mysql: --<DEL> comment divergence',
      "SELECT id FROM orders WHERE 1=1 --\u007f'\nUNION SELECT secret FROM secrets -- '",
    ],
  ];
  for (const [v, s, m = []] of my) await sqlAttack(T, v, A, 'my-a', s, { extraMarkers: m });
}

// ------------------------------------------------------------------------------------------------ 10: quoted identifier case

async function attack10({ A }) {
  const T = '10 identifier case';
  const pg = [
    ['pg exact: "Orders"', 'SELECT * FROM "Orders"'],
    ['pg: public."Orders"', 'SELECT * FROM public."Orders"'],
    ['pg: "public"."Orders"', 'SELECT * FROM "public"."Orders"'],
    ['pg: "Orders" in subquery', 'SELECT * FROM orders WHERE id IN (SELECT id FROM "Orders")'],
    ['pg: "Orders" in CTE body', 'WITH o AS (SELECT * FROM "Orders") SELECT * FROM o'],
    ['pg: "ORDERS"', 'SELECT * FROM "ORDERS"'],
    ['pg: ORDERS unquoted (folds to orders: allowed)', 'SELECT * FROM ORDERS', true],
    ['pg: "orders" quoted lower (allowed)', 'SELECT * FROM "orders"', true],
    ['pg: U&"Orders"', 'SELECT * FROM U&"Orders"'],
    ['pg: U&"\\004Frders" escape', 'SELECT * FROM U&"\\004Frders"'],
  ];
  for (const [v, s, ok] of pg) await sqlAttack(T, v, A, 'pg-a', s, { expectAllowed: ok === true });
  const my = [
    ['mysql: `Orders`', 'SELECT * FROM `Orders`'],
    ['mysql: Orders', 'SELECT * FROM Orders'],
    ['mysql: attack.Orders', 'SELECT * FROM attack.Orders'],
    ['mysql: `attack`.`Orders`', 'SELECT * FROM `attack`.`Orders`'],
    ['mysql: ATTACK.orders', 'SELECT * FROM ATTACK.orders'],
    ['mysql: `attack.orders` one identifier', 'SELECT * FROM `attack.orders`'],
    ['mysql: orders (allowed)', 'SELECT * FROM orders', true],
  ];
  for (const [v, s, ok] of my) await sqlAttack(T, v, A, 'my-a', s, { expectAllowed: ok === true });
}

// ------------------------------------------------------------------------------------------------ 13: server identity

async function attack13({ A }) {
  const T = '13 MySQL server info';
  const my = [
    ['exact: @@version', 'SELECT @@version'],
    ['exact: USER()', 'SELECT USER()'],
    ['exact: DATABASE()', 'SELECT DATABASE()'],
    ['@@VERSION upper', 'SELECT @@VERSION'],
    ['@@session.version', 'SELECT @@session.version'],
    ['@@global.version in WHERE', "SELECT id FROM orders WHERE @@global.version LIKE '10%'"],
    ['VERSION()', 'SELECT VERSION()'],
    ['`version`() quoted', 'SELECT `version`()'],
    ['CURRENT_USER keyword', 'SELECT CURRENT_USER'],
    ['CURRENT_USER()', 'SELECT CURRENT_USER()'],
    ['SESSION_USER()', 'SELECT SESSION_USER()'],
    ['SYSTEM_USER()', 'SELECT SYSTEM_USER()'],
    ['SCHEMA()', 'SELECT SCHEMA()'],
    ['CONNECTION_ID()', 'SELECT CONNECTION_ID()'],
    ['USER() inside JSON_OBJECT', "SELECT JSON_OBJECT('u', USER())"],
    ['USER() as boolean oracle', "SELECT id FROM orders WHERE USER() LIKE 'root%'"],
    ['executable comment @@version', 'SELECT /*!50000 @@version */ 1'],
    ['ODBC {fn USER()}', 'SELECT {fn USER()}'],
    ['CHARSET(USER())', 'SELECT CHARSET(USER())'],
    ['UUID() (server MAC)', 'SELECT UUID()'],
    ['information_schema.processlist', 'SELECT * FROM information_schema.processlist'],
  ];
  for (const [v, s] of my) await sqlAttack(T, v, A, 'my-a', s, { anySuccessLeaks: true });
}

// ------------------------------------------------------------------------------------------------ 11: NO_BACKSLASH_ESCAPES

async function attack11({ A }) {
  const T = '11 MySQL NO_BACKSLASH_ESCAPES';
  const stmts = [
    [
      'exact: backslash-quote then UNION',
      "SELECT note FROM orders WHERE note = 'a\\' UNION SELECT secret FROM secrets -- '",
    ],
    ['# comment tail', "SELECT note FROM orders WHERE note = 'a\\' UNION SELECT secret FROM secrets #'"],
    [
      'double-quoted string (ANSI_QUOTES would make it a name)',
      'SELECT note FROM orders WHERE note = "a\\" UNION SELECT secret FROM secrets -- "',
    ],
    [
      'escaped backslash pair',
      "SELECT note FROM orders WHERE note = 'a\\\\' OR note = 'x\\' UNION SELECT secret FROM secrets -- '",
    ],
    ['in IN list', "SELECT note FROM orders WHERE note IN ('a\\', 'b') UNION SELECT secret FROM secrets -- ')"],
  ];
  for (const [v, s] of stmts) await sqlAttack(T, `private NBE server: ${v}`, A, 'my-nbe', s);
  // the session mode as observed: backslash escapes work and "x" is a string when the pin holds
  const probe = await mcpQuery(A, 'my-nbe', "SELECT 'a\\'b' AS bs, \"dq\" AS dq");
  record(
    T,
    'private NBE server: session reads backslash escapes and "..." strings',
    probe.status,
    codeOf(probe),
    probe.status === 200 && probe.text.includes("a'b") && probe.text.includes('"dq"') ? 'pinned (ok)' : 'FAIL',
    probe.text.slice(0, 160),
  );
  // many parallel calls so that the pool opens fresh connections: each must be pinned
  const many = await Promise.all(Array.from({ length: 30 }, () => mcpQuery(A, 'my-nbe', stmts[0][1])));
  const leaks = many.filter((r) => leaked(r.text)).length;
  record(
    T,
    'private NBE server: 30 parallel calls (fresh pooled sessions)',
    many
      .map((r) => r.status)
      .join(',')
      .slice(0, 40),
    '',
    leaks ? 'LEAKED' : 'no leak',
    `${leaks} of 30 leaked`,
  );
  for (const [v, s] of stmts.slice(0, 2)) await sqlAttack(T, `control, shared server: ${v}`, A, 'my-a', s);
}

// ------------------------------------------------------------------------------------------------ 8: http redirects and paths

async function attack8({ A }) {
  const T = '8 http connector base path';
  const judge = (variant, r) => {
    if (r.text.includes('ADMIN-SECRET-RAW'))
      return record(T, variant, r.status, codeOf(r), 'LEAKED', r.text.slice(0, 160));
    if (r.text.includes('ADMIN-SECRET-DECODED'))
      return record(T, variant, r.status, codeOf(r), 'LEAKED (backend that decodes %2F)', r.text.slice(0, 200));
    return record(
      T,
      variant,
      r.status,
      `${codeOf(r)}${reasonOf(r) ? `/${reasonOf(r)}` : ''}`,
      r.status === 200 ? 'allowed, no leak' : 'refused',
      (r.body?.error ?? '').toString().slice(0, 120),
    );
  };
  const ok = await mcpQuery(A, 'http-a', '/ok');
  record(T, 'control: /ok', ok.status, codeOf(ok), ok.status === 200 ? 'allowed' : 'FAIL', ok.text.slice(0, 100));
  judge('exact: /x redirects to /admin/secret', await mcpQuery(A, 'http-a', '/x'));
  for (let i = 0; i < REDIRECTS.length; i++)
    judge(`redirect Location: ${REDIRECTS[i]}`, await mcpQuery(A, 'http-a', `/r/${i}`));
  const paths = [
    '/../admin/secret',
    '/%2e%2e/admin/secret',
    '/.%2E/admin/secret',
    '/..%2fadmin/secret',
    '/%2e%2e%2fadmin/secret',
    '/..\\admin/secret',
    '/..%5cadmin/secret',
    '/..%252fadmin/secret',
    '//admin/secret',
    '/ok/../../admin/secret',
    '/..;/admin/secret',
    '/%2F..%2F..%2Fadmin/secret',
    '/ok#/../../admin/secret',
    '/ok?x=/../../admin/secret',
  ];
  for (const p of paths) judge(`statement ${p}`, await mcpQuery(A, 'http-a', p));
  judge('params $1 = ../../admin', await mcpQuery(A, 'http-a', '/$1/secret', ['../../admin']));
  judge('params $1 = ..%2f..%2fadmin', await mcpQuery(A, 'http-a', '/$1/secret', ['..%2f..%2fadmin']));
  const tool = (path, method = 'GET') =>
    call('POST', `${GW}/mcp/tools/execute`, {
      headers: A,
      body: { connector: 'http-a', tool: 'request', params: { method, path } },
    });
  judge('tool request GET /x', await tool('/x'));
  judge('tool request GET /../admin/secret', await tool('/../admin/secret'));
  judge('tool request GET /..%2fadmin/secret', await tool('/..%2fadmin/secret'));
  judge('tool request POST on read-only', await tool('/ok', 'POST'));
  record(
    T,
    'paths the app server received (raw)',
    '',
    '',
    'info',
    [...new Set(appHits.map((h) => h.url))].join(' ').slice(0, 300),
  );
}

// ------------------------------------------------------------------------------------------------ 9: address spellings

/** Webhook URLs: each must be refused at registration, or accepted (no DNS) and refused at delivery. */
const HOOK_URLS = [
  'http://127.0.0.1:18091/h',
  'http://localhost:18091/h',
  'http://LOCALHOST:18091/h',
  'http://localhost.:18091/h',
  'http://a.localhost:18091/h',
  'http://vm:18091/h',
  'http://runsc:18091/h',
  'http://2130706433:18091/h',
  'http://0x7f000001:18091/h',
  'http://017700000001:18091/h',
  'http://0x7f.1:18091/h',
  'http://127.1:18091/h',
  'http://0:18091/h',
  'http://0.0.0.0:18091/h',
  'http://%31%32%37.0.0.1:18091/h',
  'http://１２７.０.０.１:18091/h',
  'http://127。0。0。1:18091/h',
  'http://[::1]:18091/h',
  'http://[::]:18091/h',
  'http://[::ffff:127.0.0.1]:18091/h',
  'http://[::ffff:7f00:1]:18091/h',
  'http://[::7f00:1]:18091/h',
  'http://[::127.0.0.1]:18091/h',
  'http://[::ffff:0:7f00:1]:18091/h',
  'http://[2002:7f00:1::]:18091/h',
  'http://[2001:0:7f00:1::]:18091/h',
  'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:18091/h',
  'http://[64:ff9b::7f00:1]:18091/h',
  'http://[64:ff9b:1::a9fe:a9fe]:18091/h',
  'http://[fec0::1]:18091/h',
  'http://[fe80::1]:18091/h',
  'http://[fc00::1]:18091/h',
  'http://[fd00::1]:18091/h',
  'http://[2001:db8::1]:18091/h',
  'http://[3fff::1]:18091/h',
  'http://[100::1]:18091/h',
  'http://[5f00::1]:18091/h',
  'http://[ff02::1]:18091/h',
  'http://192.0.2.1:18091/h',
  'http://198.51.100.1:18091/h',
  'http://203.0.113.1:18091/h',
  'http://169.254.169.254/latest',
  'http://[::ffff:169.254.169.254]/latest',
  'http://[::ffff:a9fe:a9fe]/latest',
  'http://100.64.0.1/h',
  'http://10.0.0.1/h',
  'http://172.16.0.1/h',
  'http://192.168.0.1/h',
  'http://198.18.0.1/h',
  'http://192.88.99.1/h',
  'http://224.0.0.1/h',
  'http://255.255.255.255/h',
  'http://240.0.0.1/h',
  'file:///etc/passwd',
  'gopher://127.0.0.1:18091/_x',
  'ftp://127.0.0.1/x',
  'http://user:pw@127.0.0.1:18091/h',
  'http://127.0.0.1.nip.io:18091/h',
  'http://[0:0:0:0:0:ffff:127.0.0.1]:18091/h',
  'http://[::ffff:0.0.0.0]:18091/h',
];
/** Names this machine resolves from /etc/hosts (no DNS traffic): accepted ones stay active to test delivery. */
const LOCAL_NAMES = new Set(['vm', 'runsc']);

async function attack9({ A }) {
  const T = '9 address spellings';
  // connectors
  const before = appHits.length;
  for (const [name, url, cidrs] of SPELLINGS) {
    const r = await mcpQuery(A, name, '/ok');
    const expected = {
      'cidr4-mapped': 'allowed (127.0.0.1/32 listed; same address)',
      'cidr6all-v6lo': 'allowed (::1 lies in the listed ::/0)',
      'cidrmapped-mapped': 'allowed (the mapped network itself is listed)',
    };
    let outcome;
    if (r.status === 200) outcome = expected[name] ?? 'LEAKED (reached loopback)';
    else outcome = 'refused';
    record(
      T,
      `connector ${url}${cidrs.length ? ` allowedCidrs=${cidrs}` : ''}`,
      r.status,
      `${codeOf(r)}${reasonOf(r) ? `/${reasonOf(r)}` : ''}`,
      outcome,
      (r.body?.error ?? '').toString().slice(0, 100),
    );
  }
  record(T, 'connector spellings: requests that reached the app server', '', '', 'info', `${appHits.length - before}`);
  // webhook registration (strict: STEWARD_WEBHOOK_ALLOW_PRIVATE_TARGETS unset)
  const keep = [];
  for (const url of HOOK_URLS) {
    const host = (() => {
      try {
        return new URL(url).hostname;
      } catch {
        return '';
      }
    })();
    const local = LOCAL_NAMES.has(host);
    const r = await call('POST', `${OR}/api/v1/webhooks`, {
      headers: A,
      body: { url, events: ['plan.completed', 'step.completed'], active: local },
    });
    if (r.status === 201) {
      if (local) keep.push(r.body.id);
      else await call('DELETE', `${OR}/api/v1/webhooks/${r.body.id}`, { headers: A });
      record(
        T,
        `webhook register ${url}`,
        r.status,
        '',
        local ? 'accepted (no DNS); delivery checked below' : 'ACCEPTED at registration (deleted at once)',
        `host ${host}`,
      );
    } else
      record(
        T,
        `webhook register ${url}`,
        r.status,
        codeOf(r),
        'refused',
        (r.body?.error?.message ?? '').slice(0, 110),
      );
  }
  // a plan makes deliveries to the kept (hosts-file) registrations: they must be refused at connect
  const hitsBefore = receiverHits.length;
  const plan = await runPlan(A);
  record(
    T,
    'plan to trigger deliveries',
    plan.status,
    codeOf(plan),
    plan.status === 200 ? 'ok' : 'error',
    plan.text.slice(0, 100),
  );
  await sleep(4000);
  for (const id of keep) {
    const d = await call('GET', `${OR}/api/v1/webhooks/${id}/deliveries`, { headers: A });
    const last = d.body?.deliveries?.[0];
    record(
      T,
      `webhook delivery to hosts-file name (${id})`,
      d.status,
      last?.status ?? '',
      last && last.status !== 'delivered' ? 'refused at delivery' : 'FAIL',
      (last?.last_error ?? JSON.stringify(last ?? {})).slice(0, 140),
    );
    await call('DELETE', `${OR}/api/v1/webhooks/${id}`, { headers: A });
  }
  record(
    T,
    'webhook receiver hits during the strict run',
    '',
    '',
    receiverHits.length === hitsBefore ? 'none (ok)' : 'LEAKED',
    `${receiverHits.length - hitsBefore}`,
  );
  // PUT (repoint) to a private address must be refused as POST is
  const ok = await call('POST', `${OR}/api/v1/webhooks`, {
    headers: A,
    body: { url: 'http://vm:18091/h', events: ['plan.completed'], active: false },
  });
  for (const url of [
    'http://127.0.0.1:18091/h',
    'http://[::ffff:7f00:1]:18091/h',
    'http://2130706433:18091/h',
    'http://169.254.169.254/',
  ]) {
    const r = await call('PUT', `${OR}/api/v1/webhooks/${ok.body?.id}`, { headers: A, body: { url } });
    record(T, `webhook PUT repoint to ${url}`, r.status, codeOf(r), r.status === 200 ? 'ACCEPTED' : 'refused');
  }
  await call('DELETE', `${OR}/api/v1/webhooks/${ok.body?.id}`, { headers: A });
}

// ------------------------------------------------------------------------------------------------ 3: policies and tenant keys

async function attack3({ keyA, A, B, KA, K9, K1, KB9 }) {
  const T = '3 tenant key vs org policy';
  const rego = 'package custom.banana\n\ndeny contains "no bananas" if contains(lower(input.query), "banana")\n';
  const made = await call('POST', `${OR}/api/v1/policies`, {
    headers: A,
    body: { name: 'org-no-banana', type: 'custom', rego },
  });
  record(
    T,
    'setup: org-wide policy by license key A',
    made.status,
    codeOf(made),
    made.status === 201 ? 'ok' : 'FAIL',
    made.text.slice(0, 120),
  );
  const t9 = bearer(K9.api_key);
  const attempts = [
    ['exact: DELETE', 'DELETE', '/api/v1/policies/org-no-banana', t9],
    ['exact: PUT enabled=false', 'PUT', '/api/v1/policies/org-no-banana', t9, { enabled: false }],
    [
      'PUT rego that allows all',
      'PUT',
      '/api/v1/policies/org-no-banana',
      t9,
      { rego: 'package custom.banana\n\ndeny contains "x" if false\n' },
    ],
    ['PUT scope tenants [t9]', 'PUT', '/api/v1/policies/org-no-banana', t9, { scope: { tenants: ['t9'] } }],
    ['GET', 'GET', '/api/v1/policies/org-no-banana', t9],
    ['DELETE with X-Tenant-ID: t9', 'DELETE', '/api/v1/policies/org-no-banana', { ...t9, 'x-tenant-id': 't9' }],
    ['DELETE with X-Tenant-ID empty', 'DELETE', '/api/v1/policies/org-no-banana', { ...t9, 'x-tenant-id': '' }],
    ['DELETE via x-api-key', 'DELETE', '/api/v1/policies/org-no-banana', { 'x-api-key': K9.api_key }],
    [
      'DELETE via Basic id:key',
      'DELETE',
      '/api/v1/policies/org-no-banana',
      { authorization: `Basic ${Buffer.from(`${K9.id}:${K9.api_key}`).toString('base64')}` },
    ],
    [
      'DELETE via Basic name:key',
      'DELETE',
      '/api/v1/policies/org-no-banana',
      { authorization: `Basic ${Buffer.from(`a-tenant-t9:${K9.api_key}`).toString('base64')}` },
    ],
    [
      'DELETE via legacy X-Client-Secret',
      'DELETE',
      '/api/v1/policies/org-no-banana',
      { 'x-client-secret': K9.api_key, 'x-client-id': K9.id },
    ],
    ['DELETE resource name org-org-a.org-no-banana', 'DELETE', '/api/v1/policies/org-org-a.org-no-banana', t9],
    ['DELETE upper-case name', 'DELETE', '/api/v1/policies/ORG-NO-BANANA', t9],
    ['DELETE trailing slash', 'DELETE', '/api/v1/policies/org-no-banana/', t9],
    ['DELETE encoded name', 'DELETE', '/api/v1/policies/%6frg-no-banana', t9],
    ['DELETE ..%2f traversal', 'DELETE', '/api/v1/policies/x%2f..%2forg-no-banana', t9],
    ['DELETE by other tenant key t1', 'DELETE', '/api/v1/policies/org-no-banana', bearer(K1.api_key)],
    ['DELETE by org B tenant t9 key', 'DELETE', '/api/v1/policies/org-no-banana', bearer(KB9.api_key)],
    ['DELETE by org B license', 'DELETE', '/api/v1/policies/org-no-banana', B],
    [
      'POST same name (existence oracle?)',
      'POST',
      '/api/v1/policies',
      t9,
      { name: 'org-no-banana', type: 'custom', rego },
    ],
    [
      'POST scope tenants [] (org-wide)',
      'POST',
      '/api/v1/policies',
      t9,
      {
        name: 't9-wide',
        type: 'custom',
        rego: 'package t9.wide\n\ndeny contains "t9wide" if contains(input.query, "kiwi")\n',
        scope: { tenants: [] },
      },
    ],
    [
      'POST scope tenants [t1]',
      'POST',
      '/api/v1/policies',
      t9,
      {
        name: 't9-other',
        type: 'custom',
        rego: 'package t9.other\n\ndeny contains "t9other" if contains(input.query, "kiwi")\n',
        scope: { tenants: ['t1'] },
      },
    ],
    [
      'POST scope organizations [org-b]',
      'POST',
      '/api/v1/policies',
      t9,
      {
        name: 't9-orgb',
        type: 'custom',
        rego: 'package t9.orgb\n\ndeny contains "t9orgb" if contains(input.query, "kiwi")\n',
        scope: { organizations: ['org-b'] },
      },
    ],
    ['GET list (must not show org-wide)', 'GET', '/api/v1/policies', t9],
  ];
  for (const [v, method, path, headers, body] of attempts) {
    const r = await call(method, `${OR}${path}`, { headers, body });
    let outcome = r.status >= 400 ? 'refused' : 'ALLOWED';
    if (v.startsWith('GET list')) outcome = r.text.includes('org-no-banana') ? 'LEAKED' : 'ok (not listed)';
    if (v.startsWith('POST same name') && r.status === 409)
      outcome = 'refused, but 409 reveals the org-wide name exists';
    if (v.startsWith('POST scope organizations') && r.status === 201)
      outcome = `created with scope ${JSON.stringify(r.body?.scope ?? r.body?.policy?.scope ?? '')}`;
    record(T, v, r.status, codeOf(r), outcome, (r.body?.error?.message ?? '').slice(0, 100));
  }
  // the org-wide policy must still block for every caller
  const callers = [
    ['license A', A],
    ['license A + X-Tenant-ID t9', { ...A, 'x-tenant-id': 't9' }],
    ['license A + X-Tenant-ID t1', { ...A, 'x-tenant-id': 't1' }],
    ['unbound API key A', bearer(KA.api_key)],
    ['tenant key t9', t9],
    ['tenant key t9 + X-Tenant-ID t9', { ...t9, 'x-tenant-id': 't9' }],
    ['tenant key t1', bearer(K1.api_key)],
  ];
  for (const [v, h] of callers) {
    const r = await preCheck(h, 'I like banana');
    record(
      T,
      `pre-check "banana" as ${v}`,
      r.status,
      codeOf(r),
      r.body?.approved === false ? 'blocked (ok)' : 'FAIL (not blocked)',
      r.body?.block_reason ?? '',
    );
  }
  // org B is not under org A's policy; the t9-orgb policy must not bind org B
  const rb = await preCheck(B, 'I like banana and kiwi');
  record(
    T,
    'pre-check org B "banana kiwi" (A\'s and t9\'s policies must not apply)',
    rb.status,
    '',
    rb.body?.approved === true ? 'approved (ok)' : 'FAIL',
    rb.body?.block_reason ?? '',
  );
  const mcp = await mcpQuery(t9, 'pg-a', "SELECT note FROM orders WHERE note = 'banana'");
  record(
    T,
    'MCP call as t9 with "banana" in the statement',
    mcp.status,
    codeOf(mcp),
    mcp.status === 403 && codeOf(mcp) === 'POLICY_VIOLATION' ? 'blocked (ok)' : 'FAIL',
    mcp.text.slice(0, 100),
  );
  // tidy the t9 policies it may have made
  for (const n of ['t9-wide', 't9-other', 't9-orgb'])
    await call('DELETE', `${OR}/api/v1/policies/${n}`, { headers: t9 });
  void keyA;
}

// ------------------------------------------------------------------------------------------------ 4: webhooks and tenant keys

async function attack4({ A, B, K9, K1, KB9, KA }) {
  const T = '4 tenant key vs org webhooks';
  const w = await call('POST', `${OR}/api/v1/webhooks`, {
    headers: A,
    body: {
      url: 'http://vm:18091/org-wide',
      events: ['plan.completed', 'step.completed'],
      secret: 'org-wide-secret-1',
    },
  });
  record(
    T,
    'setup: org-wide webhook by license A',
    w.status,
    codeOf(w),
    w.status === 201 ? 'ok' : 'FAIL',
    w.text.slice(0, 100),
  );
  const id = w.body?.id;
  await runPlan(A); // deliveries to read
  await sleep(1500);
  const t9 = bearer(K9.api_key);
  const list = await call('GET', `${OR}/api/v1/webhooks`, { headers: t9 });
  record(T, 'exact: list as t9', list.status, codeOf(list), list.text.includes(id) ? 'LEAKED' : 'not listed (ok)');
  const ops = [
    ['exact: GET', 'GET', `/api/v1/webhooks/${id}`, t9],
    ['exact: GET deliveries', 'GET', `/api/v1/webhooks/${id}/deliveries`, t9],
    ['exact: PUT url (repoint)', 'PUT', `/api/v1/webhooks/${id}`, t9, { url: 'http://runsc:18091/stolen' }],
    ['PUT active=false', 'PUT', `/api/v1/webhooks/${id}`, t9, { active: false }],
    ['PUT events', 'PUT', `/api/v1/webhooks/${id}`, t9, { events: ['plan.failed'] }],
    ['exact: DELETE', 'DELETE', `/api/v1/webhooks/${id}`, t9],
    ['GET with X-Tenant-ID t9', 'GET', `/api/v1/webhooks/${id}`, { ...t9, 'x-tenant-id': 't9' }],
    ['GET upper-case id', 'GET', `/api/v1/webhooks/${String(id).toUpperCase()}`, t9],
    ['GET id with trailing space (encoded)', 'GET', `/api/v1/webhooks/${id}%20`, t9],
    ['GET id + /deliveries/ trailing slash', 'GET', `/api/v1/webhooks/${id}/deliveries/`, t9],
    ['DELETE by tenant t1 key', 'DELETE', `/api/v1/webhooks/${id}`, bearer(K1.api_key)],
    ['GET by org B license', 'GET', `/api/v1/webhooks/${id}`, B],
    ['GET deliveries by org B license', 'GET', `/api/v1/webhooks/${id}/deliveries`, B],
    [
      'PUT by org B tenant t9 key',
      'PUT',
      `/api/v1/webhooks/${id}`,
      bearer(KB9.api_key),
      { url: 'http://runsc:18091/stolen' },
    ],
    ['DELETE by org B license', 'DELETE', `/api/v1/webhooks/${id}`, B],
  ];
  for (const [v, method, path, headers, body] of ops) {
    const r = await call(method, `${OR}${path}`, { headers, body });
    record(T, v, r.status, codeOf(r), r.status >= 400 ? 'refused' : 'ALLOWED', r.text.slice(0, 90));
  }
  const after = await call('GET', `${OR}/api/v1/webhooks/${id}`, { headers: A });
  record(
    T,
    'org-wide webhook unchanged afterwards',
    after.status,
    '',
    after.body?.url === 'http://vm:18091/org-wide' && after.body?.active === true && after.body?.events?.length === 2
      ? 'unchanged (ok)'
      : 'FAIL',
    after.text.slice(0, 140),
  );
  // a t9 webhook must hear only t9's plans
  const own = await call('POST', `${OR}/api/v1/webhooks`, {
    headers: t9,
    body: { url: 'http://runsc:18091/t9', events: ['plan.completed'] },
  });
  record(
    T,
    't9 registers its own webhook',
    own.status,
    codeOf(own),
    own.status === 201 ? 'ok' : 'FAIL',
    `tenant_id=${own.body?.tenant_id}`,
  );
  const p1 = await runPlan(A);
  const p2 = await runPlan(bearer(K1.api_key));
  const p3 = await runPlan(bearer(KA.api_key));
  const p4 = await runPlan(t9);
  await sleep(2000);
  const d = await call('GET', `${OR}/api/v1/webhooks/${own.body?.id}/deliveries`, { headers: t9 });
  const planIds = (d.body?.deliveries ?? []).map((x) => x.plan_id);
  const foreign = [p1, p2, p3]
    .map((p) => p.body?.plan_id ?? p.body?.id ?? p.body?.planId)
    .filter((x) => x && planIds.includes(x));
  const ownPlan = p4.body?.plan_id ?? p4.body?.id ?? p4.body?.planId;
  record(
    T,
    "t9 webhook hears other tenants'/org-wide plans?",
    d.status,
    '',
    foreign.length ? 'LEAKED' : 'no (ok)',
    `deliveries for ${planIds.join(',')}; own plan ${ownPlan}`,
  );
  // plans: cross-tenant and cross-org reads
  const pid = p1.body?.plan_id ?? p1.body?.id ?? p1.body?.planId;
  const mine = await call('GET', `${OR}/api/v1/plan/${pid}`, { headers: A });
  record(
    T,
    'control: GET the plan as its owner (license A)',
    mine.status,
    codeOf(mine),
    mine.status === 200 ? 'ok' : 'FAIL',
    String(pid),
  );
  for (const [v, h] of [
    ['unbound API key A', bearer(KA.api_key)],
    ['license A + X-Tenant-ID t9', { ...A, 'x-tenant-id': 't9' }],
    ['org B license', B],
    ['tenant t9 key (org-wide plan)', t9],
    ['org B tenant t9 key', bearer(KB9.api_key)],
  ]) {
    const r = await call('GET', `${OR}/api/v1/plan/${pid}`, { headers: h });
    record(
      T,
      `GET /api/v1/plan/{org-wide plan} as ${v}`,
      r.status,
      codeOf(r),
      r.status === 200 ? (v.startsWith('org B') ? 'LEAKED' : 'readable') : 'refused',
    );
  }
  await call('DELETE', `${OR}/api/v1/webhooks/${own.body?.id}`, { headers: t9 });
  await call('DELETE', `${OR}/api/v1/webhooks/${id}`, { headers: A });
}

// ------------------------------------------------------------------------------------------------ 6: key revocation

async function revocationChecks(T, keyHeaders, surfaceLabel) {
  const { key, id, lic: licHeaders } = keyHeaders;
  const uses = {
    'pre-check Bearer': () => preCheck(bearer(key), 'hello'),
    'pre-check Basic': () =>
      preCheck({ authorization: `Basic ${Buffer.from(`${id}:${key}`).toString('base64')}` }, 'hello'),
    'pre-check x-api-key': () => preCheck({ 'x-api-key': key }, 'hello'),
    'orchestrator GET /api/v1/policies': () => call('GET', `${OR}/api/v1/policies`, { headers: bearer(key) }),
    'MCP query': () =>
      call('POST', `${GW}/mcp/resources/query`, {
        headers: bearer(key),
        body: { connector: 'pg-a', statement: 'SELECT 1' },
      }),
    '/v1/chat/completions': () =>
      call('POST', `${GW}/v1/chat/completions`, {
        headers: bearer(key),
        body: { model: 'x', messages: [{ role: 'user', content: 'hi' }] },
      }),
  };
  const first = await uses['pre-check Bearer']();
  record(
    T,
    `${surfaceLabel}: key works before revocation`,
    first.status,
    codeOf(first),
    first.status === 200 ? 'ok' : 'FAIL',
  );
  // requests in flight while the revocation happens
  const racing = Array.from({ length: 10 }, (_, i) => sleep(i * 5).then(() => uses['pre-check Bearer']()));
  const del = await call('DELETE', `${GW}/api/clients/${id}`, { headers: licHeaders });
  const t0 = Date.now();
  record(
    T,
    `${surfaceLabel}: DELETE /api/clients/{id}`,
    del.status,
    codeOf(del),
    del.status === 200 ? 'revoked' : 'FAIL',
    del.text.slice(0, 100),
  );
  await Promise.all(racing);
  for (const [name, use] of Object.entries(uses)) {
    const r = await use();
    const code = codeOf(r) || r.body?.error?.code || r.body?.error?.type || '';
    const distinct = /API_KEY_REVOKED|api_key_revoked/i.test(r.text);
    record(
      T,
      `${surfaceLabel}: after revoke, ${name} (+${Date.now() - t0} ms)`,
      r.status,
      code,
      r.status === 401 && distinct
        ? 'refused, API_KEY_REVOKED'
        : r.status >= 400
          ? `refused, not the distinct code`
          : 'FAIL (still accepted)',
      r.text.slice(0, 120),
    );
  }
  const again = await call('DELETE', `${GW}/api/clients/${id}`, { headers: licHeaders });
  record(T, `${surfaceLabel}: DELETE again`, again.status, codeOf(again), 'info');
}

async function attack6({ keyA, keyB, A, B, K9 }) {
  const T = '6 API key revocation';
  const c = await createClient(keyA, 'to-revoke', 't5');
  await revocationChecks(T, { key: c.api_key, id: c.id, lic: A }, 'licensed, tenant key');
  const c2 = await createClient(keyA, 'to-revoke-2');
  await revocationChecks(T, { key: c2.api_key, id: c2.id, lic: A }, 'licensed, org-wide key');
  const victim = await createClient(keyA, 'victim');
  const victim9 = await createClient(keyA, 'victim-t9', 't9');
  for (const [v, h, id] of [
    ['tenant key t9 (org-wide client)', bearer(K9.api_key), victim.id],
    ["tenant key t9 (its own tenant's other client)", bearer(K9.api_key), victim9.id],
    ['org B license', B, victim.id],
    ['org B license + X-Tenant-ID t9 (t9 client)', { ...B, 'x-tenant-id': 't9' }, victim9.id],
    ['license A + X-Tenant-ID t7 (t9 client)', { ...A, 'x-tenant-id': 't7' }, victim9.id],
  ]) {
    const r = await call('DELETE', `${GW}/api/clients/${id}`, { headers: h });
    record(T, `DELETE org A's client as ${v}`, r.status, codeOf(r), r.status >= 400 ? 'refused' : 'ALLOWED');
  }
  const stillWorks = await preCheck(bearer(victim.api_key), 'hi');
  const stillWorks9 = await preCheck(bearer(victim9.api_key), 'hi');
  record(
    T,
    'victim keys still work after refused DELETEs',
    `${stillWorks.status}/${stillWorks9.status}`,
    codeOf(stillWorks),
    stillWorks.status === 200 && stillWorks9.status === 200 ? 'ok' : 'FAIL',
  );
  const narrowed = await createClient(keyA, 'narrow-target');
  const nr = await call('DELETE', `${GW}/api/clients/${narrowed.id}`, { headers: { ...A, 'x-tenant-id': 't7' } });
  record(
    T,
    'license A narrowed to t7 revokes an org-wide client (license holder: by design)',
    nr.status,
    codeOf(nr),
    'info',
  );
  const listB = await call('GET', `${GW}/api/clients`, { headers: B });
  record(T, "org B lists clients: org A's absent", listB.status, '', listB.text.includes(victim.id) ? 'LEAKED' : 'ok');
  const list9 = await call('GET', `${GW}/api/clients`, { headers: bearer(K9.api_key) });
  record(T, 'tenant key lists clients', list9.status, codeOf(list9), list9.status >= 400 ? 'refused' : 'ALLOWED');
  void keyB;
}

// ------------------------------------------------------------------------------------------------ 12: audit replay

async function attack12({ A, B, K9, KA }) {
  const T = '12 audit replay';
  const audit = (h, body) =>
    call('POST', `${GW}/api/audit/llm-call`, {
      headers: h,
      body: { client_id: 'rerun', prompt: 'p', response_summary: 'r', provider: 'x', model: 'y', ...body },
    });
  const ctxOf = async (h, clientId = 'rerun') =>
    (
      await call('POST', `${GW}/api/policy/pre-check`, {
        headers: h,
        body: { client_id: clientId, user_token: 'u', query: 'hello' },
      })
    ).body?.context_id;
  const c1 = await ctxOf(A);
  const r1 = await audit(A, { context_id: c1 });
  const r2 = await audit(A, { context_id: c1 });
  record(T, 'exact: first audit', r1.status, codeOf(r1), r1.status === 200 ? 'recorded' : 'FAIL');
  record(
    T,
    'exact: second audit same context',
    r2.status,
    codeOf(r2),
    r2.status === 409 ? 'refused' : 'FAIL (replayed)',
  );
  const c2 = await ctxOf(A);
  const burst = await Promise.all(Array.from({ length: 25 }, () => audit(A, { context_id: c2 })));
  const ok = burst.filter((r) => r.status === 200).length;
  record(
    T,
    'exact: 25 concurrent audits of one context',
    burst
      .map((r) => r.status)
      .sort()
      .join(',')
      .slice(0, 60),
    '',
    ok === 1 ? 'one recorded (ok)' : 'FAIL',
    `${ok} answered 200`,
  );
  const c3 = await ctxOf(A);
  const mixed = await Promise.all([
    audit(A, { context_id: c3 }),
    audit(bearer(KA.api_key), { context_id: c3 }),
    audit({ ...A, 'x-tenant-id': 'tx' }, { context_id: c3 }),
    audit(A, { context_id: c3, metadata: { tenant_id: 'zz' } }),
  ]);
  record(
    T,
    'concurrent audits via different credentials of the org',
    mixed.map((r) => r.status).join(','),
    '',
    mixed.filter((r) => r.status === 200).length <= 1 ? 'at most one (ok)' : 'FAIL',
  );
  const c4 = await ctxOf(A);
  for (const [v, h, body] of [
    ['other client_id', A, { context_id: c4, client_id: 'someone-else' }],
    ['org B license', B, { context_id: c4 }],
    ['tenant key t9 on org-wide context', bearer(K9.api_key), { context_id: c4 }],
    ['context id upper-case', A, { context_id: String(c4).toUpperCase() }],
    ['context id with trailing space', A, { context_id: `${c4} ` }],
    ['context id with NUL', A, { context_id: `${c4}\u0000` }],
  ]) {
    const r = await audit(h, body);
    record(T, v, r.status, codeOf(r), r.status === 200 ? 'ACCEPTED' : 'refused');
  }
  const final = await audit(A, { context_id: c4 });
  record(
    T,
    'the rightful audit still works after those',
    final.status,
    codeOf(final),
    final.status === 200 ? 'ok' : 'FAIL',
  );
}

// ------------------------------------------------------------------------------------------------ isolation

async function isolation({ A, B, KB, K9 }) {
  const T = 'isolation between organizations';
  const lb = await call('GET', `${GW}/mcp/connectors`, { headers: B });
  record(
    T,
    'org B lists connectors: pg-a/my-a/http-a absent',
    lb.status,
    '',
    /pg-a|my-a|http-a/.test(lb.text) ? 'LEAKED' : 'ok',
    (lb.body?.connectors ?? []).map((c) => c.name).join(','),
  );
  for (const [v, h] of [
    ['org B license', B],
    ['org B API key', bearer(KB.api_key)],
  ]) {
    const r = await mcpQuery(h, 'pg-a', 'SELECT * FROM orders');
    record(T, `${v} queries org A's pg-a`, r.status, codeOf(r), r.status === 200 ? 'LEAKED' : 'refused');
  }
  const ra = await mcpQuery(A, 'pg-b', 'SELECT * FROM secrets');
  record(
    T,
    "org A queries org B's pg-b (allows secrets)",
    ra.status,
    codeOf(ra),
    leaked(ra.text) ? 'LEAKED' : 'refused',
  );
  const rh = await call('GET', `${GW}/mcp/connectors/pg-a/health`, { headers: B });
  record(T, "org B health of org A's connector", rh.status, codeOf(rh), rh.status === 200 ? 'LEAKED' : 'refused');
  const mh = await call('GET', `${GW}/mcp/health`, { headers: B });
  record(T, 'org B /mcp/health lists only its own', mh.status, '', /pg-a|my-a/.test(mh.text) ? 'LEAKED' : 'ok');
  const tools = await call('POST', `${GW}/mcp`, {
    headers: { ...B, accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
  });
  record(
    T,
    'org B MCP tools/list',
    tools.status,
    '',
    /pg_a|my_a|http_a/.test(tools.text) ? 'LEAKED' : 'ok',
    tools.text.slice(0, 120),
  );
  const callTool = await call('POST', `${GW}/mcp`, {
    headers: { ...B, accept: 'application/json, text/event-stream' },
    body: {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'pg_a__query', arguments: { statement: 'SELECT * FROM orders' } },
    },
  });
  record(
    T,
    'org B MCP tools/call pg_a__query',
    callTool.status,
    '',
    callTool.text.includes('order-one') ? 'LEAKED' : 'refused',
    callTool.text.slice(0, 120),
  );
  const pa = await call('GET', `${OR}/api/v1/policies`, { headers: B });
  record(T, 'org B lists policies', pa.status, '', pa.text.includes('org-no-banana') ? 'LEAKED' : 'ok');
  const pg = await call('GET', `${OR}/api/v1/policies/org-no-banana`, { headers: B });
  record(T, "org B GET org A's policy name", pg.status, codeOf(pg), pg.status === 200 ? 'LEAKED' : 'refused');
  const mB = await call('GET', `${GW}/metrics`, { headers: B });
  record(T, 'org B /metrics', mB.status, '', 'info', mB.text.slice(0, 120));
  const prom = await call('GET', `${GW}/metrics/prometheus`, { headers: B });
  record(T, 'org B /metrics/prometheus', prom.status, codeOf(prom), prom.status === 200 ? 'LEAKED' : 'refused');
  const prom9 = await call('GET', `${OR}/metrics/prometheus`, { headers: bearer(K9.api_key) });
  record(
    T,
    'tenant key /metrics/prometheus on 8081',
    prom9.status,
    codeOf(prom9),
    prom9.status === 200 ? 'LEAKED' : 'refused',
  );
  const refresh = await call('POST', `${GW}/api/v1/connectors/refresh`, { headers: bearer(K9.api_key) });
  record(
    T,
    'tenant key POST /api/v1/connectors/refresh',
    refresh.status,
    codeOf(refresh),
    refresh.status === 200 ? 'ALLOWED' : 'refused',
  );
  const body = await call('POST', `${OR}/api/v1/policies`, {
    headers: B,
    body: {
      name: 'b-by-body',
      type: 'custom',
      rego: 'package b.body\n\ndeny contains "b" if false\n',
      organization_id: 'org-a',
      org_id: 'org-a',
    },
  });
  const seenByA = await call('GET', `${OR}/api/v1/policies/b-by-body`, { headers: A });
  record(
    T,
    'org B POST policy with organization_id=org-a in body',
    body.status,
    codeOf(body),
    seenByA.status === 200 ? 'LEAKED (landed in A)' : 'stays in B (ok)',
  );
  await call('DELETE', `${OR}/api/v1/policies/b-by-body`, { headers: B });
  const par = await call('POST', `${OR}/orchestrator/parallel`, {
    headers: { ...A, 'x-organization-id': 'org-b' },
    body: { queries: [{ query: 'hi' }] },
  });
  record(
    T,
    'parallel surface with X-Organization-ID of another org',
    par.status,
    codeOf(par),
    par.status === 401 ? 'refused' : 'info',
    par.text.slice(0, 100),
  );
}

// ------------------------------------------------------------------------------------------------ header smuggling

async function headers({ A, K9, KB }) {
  const T = 'header smuggling';
  const pol = (h) => call('GET', `${OR}/api/v1/policies`, { headers: h });
  const cases = [
    ['t9 key + X-Tenant-ID t1', { ...bearer(K9.api_key), 'x-tenant-id': 't1' }],
    ['t9 key + X-Tenant-ID T9 (case)', { ...bearer(K9.api_key), 'x-tenant-id': 'T9' }],
    [
      'forged X-Steward-Identity on 8081 (random sig)',
      {
        'x-steward-identity': `${Buffer.from(JSON.stringify({ org: 'org-a', tier: 'ENT', cred: 'license-key', ts: Date.now(), rid: 'r1' })).toString('base64url')}.${'0'.repeat(64)}`,
        'x-request-id': 'r1',
      },
    ],
    [
      'forged X-Steward-Identity + valid org B key',
      { ...bearer(KB.api_key), 'x-steward-identity': 'e30.00', 'x-request-id': 'r2' },
    ],
    ['forged X-Steward-Identity on 8080', null],
    ['Authorization with two Bearer values', { authorization: `Bearer ${K9.api_key}, Bearer ${KB.api_key}` }],
    ['license prefix in Bearer (junk)', { authorization: 'Bearer STW-ENT-00000-abc-ZZZZZ' }],
  ];
  for (const [v, h] of cases) {
    const r = h
      ? await pol(h)
      : await call('POST', `${GW}/api/policy/pre-check`, {
          headers: { 'x-steward-identity': 'e30.00' },
          body: { client_id: 'a', user_token: 'u', query: 'q' },
        });
    record(T, v, r.status, codeOf(r), r.status >= 400 ? 'refused' : 'ALLOWED', r.text.slice(0, 100));
  }
  // duplicate header lines (node:http keeps both)
  const dup = await rawRequest(18081, 'GET', '/api/v1/policies', [
    'host',
    '127.0.0.1:18081',
    'authorization',
    `Bearer ${K9.api_key}`,
    'x-tenant-id',
    't9',
    'x-tenant-id',
    't1',
  ]);
  record(
    T,
    'duplicate X-Tenant-ID lines t9,t1 on a t9 key',
    dup.status,
    dup.body?.error?.code ?? '',
    dup.status >= 400 ? 'refused' : 'ALLOWED',
    dup.text.slice(0, 80),
  );
  const dupAuth = await rawRequest(18081, 'GET', '/api/v1/policies', [
    'host',
    '127.0.0.1:18081',
    'authorization',
    `Bearer ${K9.api_key}`,
    'authorization',
    `Bearer ${KB.api_key}`,
  ]);
  record(
    T,
    'duplicate Authorization lines (t9 key, org B key)',
    dupAuth.status,
    dupAuth.body?.error?.code ?? '',
    dupAuth.status === 200 ? 'first line used (node drops duplicates of Authorization)' : 'refused',
    dupAuth.text.slice(0, 80),
  );
  const dupLic = await rawRequest(
    18080,
    'POST',
    '/api/policy/pre-check',
    [
      'host',
      '127.0.0.1:18080',
      'content-type',
      'application/json',
      'x-license-key',
      'bogus',
      'x-license-key',
      A['x-license-key'],
    ],
    JSON.stringify({ client_id: 'a', user_token: 'u', query: 'q' }),
  );
  record(
    T,
    'duplicate X-License-Key lines (bogus, valid)',
    dupLic.status,
    dupLic.body?.code ?? '',
    dupLic.status === 200 ? 'ALLOWED' : 'refused',
  );
  const lb = await rawRequest(
    18080,
    'POST',
    '/api/policy/pre-check',
    ['host', '127.0.0.1:18080', 'content-type', 'application/json', 'x-license-key', `${A['x-license-key']}\t`],
    JSON.stringify({ client_id: 'a', user_token: 'u', query: 'q' }),
  );
  record(T, 'license key with trailing tab', lb.status, lb.body?.code ?? '', 'info');
  const ct = await call('POST', `${GW}/api/policy/pre-check`, {
    headers: { ...A, 'content-type': 'text/plain' },
    raw: JSON.stringify({ client_id: 'a', user_token: 'u', query: 'q' }),
  });
  record(T, 'text/plain body', ct.status, codeOf(ct), ct.status === 415 ? 'refused' : 'info');
  const proto = await call('POST', `${GW}/api/policy/pre-check`, {
    headers: A,
    raw: '{"client_id":"a","user_token":"u","query":"q","__proto__":{"approved":true,"tenant_id":"t9"},"constructor":{"prototype":{"x":1}}}',
  });
  record(T, '__proto__ / constructor keys in body', proto.status, codeOf(proto), 'info', proto.text.slice(0, 100));
}

// ------------------------------------------------------------------------------------------------ limits

async function limits({ A }) {
  const T = 'size and depth limits';
  const big = await call('POST', `${GW}/api/policy/pre-check`, {
    headers: A,
    body: { client_id: 'a', user_token: 'u', query: 'x'.repeat(2 * 1024 * 1024) },
  });
  record(T, '2 MiB body', big.status, codeOf(big), big.status === 413 ? 'refused' : 'FAIL');
  let deep = '"x"';
  for (let i = 0; i < 70; i++) deep = `{"a":${deep}}`;
  const d = await call('POST', `${GW}/api/policy/pre-check`, {
    headers: A,
    raw: `{"client_id":"a","user_token":"u","query":"q","context":${deep}}`,
  });
  record(T, 'JSON depth 71', d.status, codeOf(d), d.status === 400 ? 'refused' : 'FAIL');
  let deepArr = '1';
  for (let i = 0; i < 100000; i++) deepArr = `[${deepArr}]`;
  const da = await call('POST', `${GW}/api/policy/pre-check`, {
    headers: A,
    raw: `{"client_id":"a","user_token":"u","query":"q","context":{"a":${deepArr}}}`,
  });
  record(T, 'JSON array depth 100000', da.status, codeOf(da), da.status === 400 ? 'refused' : 'FAIL');
  const hh = await call('GET', `${GW}/health`, { headers: { 'x-junk': 'a'.repeat(20000) } });
  record(T, '20 KB header', hh.status, codeOf(hh), hh.status === 431 ? 'refused' : 'info');
  const long = await mcpQuery(A, 'pg-a', `SELECT id FROM orders WHERE note = '${'a'.repeat(70000)}'`);
  record(
    T,
    '70 KB SQL statement',
    long.status,
    `${codeOf(long)}/${reasonOf(long)}`,
    long.status >= 400 ? 'refused' : 'FAIL',
  );
  const many = await mcpQuery(
    A,
    'pg-a',
    `SELECT ${Array.from({ length: 1100 }, (_, i) => `id AS c${i}`).join(', ')} FROM orders`,
  );
  record(
    T,
    '4400-token SQL statement',
    many.status,
    `${codeOf(many)}/${reasonOf(many)}`,
    many.status >= 400 ? 'refused' : 'FAIL',
  );
  const t0 = Date.now();
  const heavy = await mcpQuery(
    A,
    'pg-a',
    `SELECT ${Array.from({ length: 490 }, (_, i) => `id+${i}`).join(', ')} FROM orders`,
  );
  record(T, 'just under the token cap: parse time', heavy.status, codeOf(heavy), 'info', `${Date.now() - t0} ms`);
  const rego = await call('POST', `${OR}/api/v1/policies`, {
    headers: A,
    body: { name: 'huge', type: 'custom', rego: `package huge\n# ${'x'.repeat(70 * 1024)}\n` },
  });
  record(T, '70 KB Rego', rego.status, codeOf(rego), rego.status >= 400 ? 'refused' : 'FAIL');
  const slow = await call('POST', `${OR}/api/v1/policies`, {
    headers: A,
    body: {
      name: 'slow',
      type: 'custom',
      rego: 'package slow\n\ndeny contains "x" if {\n  some i in numbers.range(1, 100000000)\n  i < 0\n}\n',
    },
  });
  record(T, 'Rego that runs forever (created?)', slow.status, codeOf(slow), 'info');
  if (slow.status === 201) {
    const pc = await preCheck(A, 'hello');
    record(
      T,
      'pre-check under the runaway Rego',
      pc.status,
      codeOf(pc),
      pc.body?.approved === false ? 'fails closed (blocked)' : 'FAIL (approved)',
      pc.body?.block_reason ?? '',
    );
    await call('DELETE', `${OR}/api/v1/policies/slow`, { headers: A });
  }
  const rt = await call('POST', `${OR}/api/v1/policies`, {
    headers: A,
    body: {
      name: 'envleak',
      type: 'custom',
      rego: 'package envleak\n\ndeny contains msg if {\n  msg := json.marshal(opa.runtime())\n}\n',
    },
  });
  if (rt.status === 201) {
    const pc = await preCheck(A, 'hello');
    record(
      T,
      'opa.runtime() in a tenant-written policy',
      pc.status,
      '',
      /SECRET|KEY|RERUN|STEWARD/.test(pc.text) ? 'LEAKED (environment)' : 'nothing sensitive',
      (pc.body?.block_reason ?? '').slice(0, 120),
    );
    await call('DELETE', `${OR}/api/v1/policies/envleak`, { headers: A });
  } else record(T, 'opa.runtime() in a policy', rt.status, codeOf(rt), 'refused at compile');
  const yamlBomb = `a: &a ["x","x","x","x","x","x","x","x","x"]\n${Array.from({ length: 12 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`).join('\n')}\n`;
  const yb = await call('POST', `${OR}/api/v1/agents/validate`, {
    headers: { ...A, 'content-type': 'application/yaml' },
    raw: yamlBomb,
    timeoutMs: 20000,
  });
  record(
    T,
    'YAML alias bomb to /api/v1/agents/validate',
    yb.status,
    codeOf(yb),
    yb.status >= 400 || yb.status === 200 ? 'answered' : 'error',
    yb.text.slice(0, 100),
  );
  const q = await call('POST', `${OR}/api/v1/plan`, {
    headers: A,
    body: { query: 'x'.repeat(40000), domain: 'generic' },
  });
  record(T, 'plan query 40,000 characters', q.status, codeOf(q), q.status === 400 ? 'refused' : 'info');
}

// ------------------------------------------------------------------------------------------------ policy packages across scopes

/** Files of dynamic policies whose name contains one of `names`, as an operator would remove them by hand. */
function removePolicyFiles(dir, names) {
  const gone = [];
  for (const f of readdirSync(dir))
    if (names.some((n) => f.includes(n))) {
      rmSync(join(dir, f));
      gone.push(f);
    }
  return gone;
}

async function restartCheck(T, env, label) {
  await stopSteward();
  try {
    await startSteward(env, { label });
    const h = await call('GET', `${GW}/health`);
    record(T, `${label}: restart`, h.status, '', 'starts', JSON.stringify(h.body?.warnings ?? '').slice(0, 160));
    return true;
  } catch (e) {
    record(
      T,
      `${label}: restart`,
      'exit',
      '',
      'FAIL (the installation does not start)',
      String(e.message).replace(/\s+/g, ' ').slice(0, 260),
    );
    return false;
  }
}

async function packageCollision(ctx) {
  const { A, B, K9, KB9, env, dir } = ctx;
  const T = 'policy package collision (tenant key)';
  const manifests = join(dir, 'manifests');
  const t9 = bearer(K9.api_key);
  const b9 = bearer(KB9.api_key);
  const pre = await preCheck(B, 'kiwi');
  record(T, 'baseline: org B "kiwi" approved', pre.status, '', pre.body?.approved === true ? 'ok' : 'info');
  // 1. org A's tenant t9 writes a module whose rule path collides with org A's org-wide package custom.banana
  const evil = await call('POST', `${OR}/api/v1/policies`, {
    headers: t9,
    body: {
      name: 't9-collide',
      type: 'custom',
      rego: 'package custom\n\nbanana := 1\n\ndeny contains "t9" if false\n',
    },
  });
  record(
    T,
    'A/t9 POSTs `package custom; banana := 1` (compiles alone; collides with org-wide custom.banana)',
    evil.status,
    codeOf(evil),
    evil.status === 201 ? 'accepted' : 'refused',
    evil.text.slice(0, 120),
  );
  const onDisk = readdirSync(manifests).filter((f) => f.includes('t9-collide'));
  record(
    T,
    'is the refused document on disk anyway?',
    '',
    '',
    onDisk.length ? 'yes: written despite the error' : 'no',
    onDisk.join(','),
  );
  const listed = await call('GET', `${OR}/api/v1/policies`, { headers: t9 });
  record(
    T,
    'A/t9 lists its policies',
    listed.status,
    '',
    'info',
    (Array.isArray(listed.body?.policies) ? listed.body.policies : []).map((p) => p.name).join(','),
  );
  const health = await call('GET', `${GW}/health`);
  record(
    T,
    '/health after',
    health.status,
    '',
    'info',
    JSON.stringify(health.body?.warnings ?? health.body?.status).slice(0, 200),
  );
  const bp = await call('POST', `${OR}/api/v1/policies`, {
    headers: B,
    body: {
      name: 'b-no-kiwi',
      type: 'custom',
      rego: 'package b.kiwi\n\ndeny contains "no kiwi" if contains(input.query, "kiwi")\n',
    },
  });
  await sleep(500);
  const after = await preCheck(B, 'kiwi');
  record(
    T,
    'then org B creates its own "no kiwi" policy',
    bp.status,
    codeOf(bp),
    bp.status === 201 ? 'ok' : 'FAIL: another organization cannot write policies',
    bp.text.slice(0, 100),
  );
  record(
    T,
    'org B "kiwi" pre-check',
    after.status,
    '',
    after.body?.approved === false ? 'blocked (policy in force, ok)' : "FAIL: org B's new policy not in force",
    after.body?.block_reason ?? '',
  );
  const bdel = await call('DELETE', `${OR}/api/v1/policies/org-no-banana`, { headers: A });
  await sleep(300);
  const stillBanana = await preCheck(A, 'banana');
  record(
    T,
    'org A deletes its org-wide policy: does the deletion take effect?',
    `${bdel.status}/${stillBanana.status}`,
    codeOf(bdel),
    stillBanana.body?.approved === true ? 'took effect' : 'FAIL: the deleted policy still blocks',
    stillBanana.body?.block_reason ?? '',
  );
  const a1 = await preCheck(bearer(ctx.K1.api_key), 'banana');
  record(T, 'A/t1 "banana" pre-check', a1.status, codeOf(a1), 'info', a1.body?.block_reason ?? 'approved');
  const started = await restartCheck(T, env, "after A/t9's document");
  const gone = removePolicyFiles(manifests, ['t9-collide']);
  record(T, 'operator removes the offending file by hand', '', '', 'info', gone.join(','));
  if (!started && !(await restartCheck(T, env, 'after the hand removal'))) return;

  // 2. org B's tenant t9 alone: two of its own policies whose packages collide; nobody else's package is needed
  const p1 = await call('POST', `${OR}/api/v1/policies`, {
    headers: b9,
    body: { name: 'b9-one', type: 'custom', rego: 'package evil\n\nnested := 1\n\ndeny contains "x" if false\n' },
  });
  const p2 = await call('POST', `${OR}/api/v1/policies`, {
    headers: b9,
    body: { name: 'b9-two', type: 'custom', rego: 'package evil.nested\n\ndeny contains "y" if false\n' },
  });
  record(
    T,
    'B/t9 POSTs `package evil; nested := 1` then `package evil.nested`',
    `${p1.status}/${p2.status}`,
    codeOf(p2),
    p2.status === 201 ? 'accepted' : 'refused (500?)',
    p2.text.slice(0, 100),
  );
  const ap = await call('POST', `${OR}/api/v1/policies`, {
    headers: A,
    body: {
      name: 'a-no-plum',
      type: 'custom',
      rego: 'package a.plum\n\ndeny contains "no plum" if contains(input.query, "plum")\n',
    },
  });
  await sleep(500);
  const plum = await preCheck(A, 'plum');
  record(
    T,
    'then org A creates "no plum"',
    ap.status,
    codeOf(ap),
    ap.status === 201 ? 'ok' : "FAIL: org A cannot write policies because of org B's tenant",
    ap.text.slice(0, 100),
  );
  record(
    T,
    'org A "plum" pre-check',
    plum.status,
    '',
    plum.body?.approved === false ? 'blocked (ok)' : "FAIL: org A's new policy not in force",
    plum.body?.block_reason ?? '',
  );
  const ok2 = await restartCheck(T, env, "after B/t9's two documents");
  const gone2 = removePolicyFiles(manifests, ['b9-one', 'b9-two']);
  record(T, "operator removes B/t9's files by hand", '', '', 'info', gone2.join(','));
  if (!ok2 && !(await restartCheck(T, env, 'after the second hand removal'))) return;

  // 3. with the built-in pack enabled (the default): one POST by a tenant key is enough
  const packEnv = { ...env, STEWARD_BUILTIN_POLICY_PACK: 'enabled' };
  if (!(await restartCheck(T, packEnv, 'with the built-in pack enabled'))) return;
  // 3a. no conflict at all: a tenant module that adds a definition to a helper the pack negates
  const key = `sk-proj-${'Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gH3k'}`;
  const before9 = await preCheck(t9, `please use my key ${key} for the call`);
  record(
    T,
    'pack enabled: A/t9 pre-check with an OpenAI-style key (before)',
    before9.status,
    '',
    before9.body?.approved === false ? 'blocked (ok)' : 'info: not blocked',
    before9.body?.block_reason ?? '',
  );
  const neuter = await call('POST', `${OR}/api/v1/policies`, {
    headers: t9,
    body: {
      name: 't9-neuter',
      type: 'custom',
      rego: 'package steward.builtin.secrets\n\nplaceholder_token(_, _) if true\n',
    },
  });
  record(
    T,
    'pack enabled: A/t9 POSTs `package steward.builtin.secrets; placeholder_token(_, _) if true`',
    neuter.status,
    codeOf(neuter),
    neuter.status === 201 ? 'accepted' : 'refused',
    neuter.text.slice(0, 100),
  );
  await sleep(300);
  const after9 = await preCheck(t9, `please use my key ${key} for the call`);
  const after1 = await preCheck(bearer(ctx.K1.api_key), `please use my key ${key} for the call`);
  record(
    T,
    'pack enabled: A/t9 pre-check with the key (after)',
    after9.status,
    '',
    after9.body?.approved === false
      ? 'still blocked (ok)'
      : 'BYPASSED: the org-wide built-in secrets policy no longer blocks for t9',
    after9.body?.block_reason ?? 'approved',
  );
  record(
    T,
    'pack enabled: A/t1 pre-check with the key (after)',
    after1.status,
    '',
    after1.body?.approved === false ? 'blocked (ok)' : 'FAIL',
    after1.body?.block_reason ?? 'approved',
  );
  await call('DELETE', `${OR}/api/v1/policies/t9-neuter`, { headers: t9 });
  await sleep(300);

  const one = await call('POST', `${OR}/api/v1/policies`, {
    headers: b9,
    body: {
      name: 'b9-pack',
      type: 'custom',
      rego: 'package steward.builtin\n\npii := 1\n\ndeny contains "x" if false\n',
    },
  });
  record(
    T,
    'pack enabled: B/t9 POSTs one policy `package steward.builtin; pii := 1`',
    one.status,
    codeOf(one),
    one.status >= 500 ? 'server error (document written?)' : one.status === 201 ? 'accepted' : 'refused',
    one.text.slice(0, 100),
  );
  record(
    T,
    'pack enabled: document on disk?',
    '',
    '',
    readdirSync(manifests).some((f) => f.includes('b9-pack')) ? 'yes' : 'no',
  );
  const ap2 = await call('POST', `${OR}/api/v1/policies`, {
    headers: A,
    body: {
      name: 'a-no-fig',
      type: 'custom',
      rego: 'package a.fig\n\ndeny contains "no fig" if contains(input.query, "fig")\n',
    },
  });
  await sleep(500);
  const fig = await preCheck(A, 'fig');
  record(
    T,
    'pack enabled: then org A creates "no fig"',
    `${ap2.status}/${fig.status}`,
    codeOf(ap2),
    fig.body?.approved === false ? 'in force (ok)' : "FAIL: org A's new policy not in force",
    fig.body?.block_reason ?? '',
  );
  const ok3 = await restartCheck(T, packEnv, "pack enabled, after B/t9's one document");
  record(
    T,
    "operator removes B/t9's file by hand",
    '',
    '',
    'info',
    removePolicyFiles(manifests, ['b9-pack']).join(','),
  );
  if (!ok3) await restartCheck(T, packEnv, 'pack enabled, after the hand removal');
  const logErrors = stewardLog()
    .split('\n')
    .filter((l) => /conflict/i.test(l))
    .slice(-2);
  record(T, 'log lines about the conflicts', '', '', 'info', logErrors.join(' | ').slice(0, 300));
}

// ================================================================================================ fairness run

async function fairnessRun() {
  const T = '5 webhook fairness';
  const keys = { a: licenseKey('ENT'), b: licenseKey('ENT'), c: licenseKey('ENT'), d: licenseKey('ENT') };
  const dir = join(WORK, 'fairness');
  rmSync(dir, { recursive: true, force: true });
  writeManifests(
    join(dir, 'manifests'),
    licenseDoc('org-a', 'RERUN_KEY_A') +
      licenseDoc('org-b', 'RERUN_KEY_B') +
      licenseDoc('org-c', 'RERUN_KEY_C') +
      licenseDoc('org-d', 'RERUN_KEY_D'),
  );
  const timeout = 2000;
  await startSteward(
    {
      STEWARD_DATA_DIR: join(dir, 'data'),
      STEWARD_MANIFESTS: join(dir, 'manifests'),
      STEWARD_BUILTIN_POLICY_PACK: 'disabled',
      STEWARD_LICENSE_SIGNING_SECRET: 'rerun-signing-secret-0123456789abcdef',
      RERUN_KEY_A: keys.a,
      RERUN_KEY_B: keys.b,
      RERUN_KEY_C: keys.c,
      RERUN_KEY_D: keys.d,
      STEWARD_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      STEWARD_WEBHOOK_TIMEOUT_MS: String(timeout),
      STEWARD_WEBHOOK_RETRY_BASE_MS: '200',
      STEWARD_WEBHOOK_MAX_ATTEMPTS: '10',
    },
    { label: 'fairness' },
  );
  const A = lic(keys.a);
  const events = ['plan.completed', 'plan.failed', 'step.completed'];
  const hookA = await call('POST', `${OR}/api/v1/webhooks`, {
    headers: A,
    body: { url: `http://127.0.0.1:${RECEIVER_PORT}/a`, events: ['plan.completed'], secret: 'a-secret' },
  });
  record(T, 'org A registers one receiver', hookA.status, codeOf(hookA), hookA.status === 201 ? 'ok' : 'FAIL');

  /** Measures org A's delivery: from the plan's answer to the receiver's hit. */
  const measure = async (label) => {
    const start = receiverHits.length;
    const load = `dead sockets open ${holeSockets.open}, accepted ${holeSockets.total}, slow-loris ${holeSockets.trickle ?? 0}`;
    const p = await runPlan(A, 'summarize this week');
    const answered = Date.now();
    const pid = p.body?.plan_id ?? p.body?.id ?? p.body?.planId;
    let hit;
    for (let i = 0; i < 300 && !hit; i++) {
      hit = receiverHits.slice(start).find((h) => h.body.includes(pid ?? '\u0000'));
      if (!hit) await sleep(100);
    }
    const ms = hit ? hit.at - answered : undefined;
    const bound = timeout + 1500;
    record(
      T,
      label,
      p.status,
      '',
      ms === undefined
        ? 'FAIL (not delivered in 30 s)'
        : ms <= bound
          ? `delivered in ${ms} ms (ok, bound ${bound})`
          : `SLOW: ${ms} ms (bound ${bound})`,
      load,
    );
    return ms;
  };
  await measure('baseline, no other load');

  // org B: 30 hooks on one dead origin (the exact attack)
  const B = lic(keys.b);
  for (let i = 0; i < 30; i++)
    await call('POST', `${OR}/api/v1/webhooks`, {
      headers: B,
      body: { url: `http://127.0.0.1:${BLACKHOLE_PORT}/b${i}`, events },
    });
  for (let i = 0; i < 3; i++) await runPlan(B);
  await sleep(300);
  await measure('exact: org B 30 hooks to one never-answering origin');

  // variation: org B's 30 hooks on 30 distinct dead origins (defeats the per-target cap)
  const B2 = await call('GET', `${OR}/api/v1/webhooks`, { headers: B });
  for (const w of B2.body?.webhooks ?? []) await call('DELETE', `${OR}/api/v1/webhooks/${w.id}`, { headers: B });
  for (let i = 0; i < 30; i++)
    await call('POST', `${OR}/api/v1/webhooks`, {
      headers: B,
      body: { url: `http://127.0.0.1:${18100 + i}/b`, events },
    });
  for (let i = 0; i < 3; i++) await runPlan(B);
  await sleep(300);
  await measure('variation: org B 30 hooks on 30 distinct dead origins');

  // variation: orgs B, C and D each with 30 distinct dead origins (more than the 8 global slots)
  for (const [k, base] of [
    [keys.c, 18130],
    [keys.d, 18160],
  ]) {
    for (let i = 0; i < 30; i++)
      await call('POST', `${OR}/api/v1/webhooks`, {
        headers: lic(k),
        body: { url: `http://127.0.0.1:${base + i}/x`, events },
      });
  }
  for (let i = 0; i < 3; i++) await Promise.all([runPlan(B), runPlan(lic(keys.c)), runPlan(lic(keys.d))]);
  await sleep(300);
  await measure('variation: orgs B, C, D with 90 dead origins saturating every slot');
  await measure('variation: same, second measurement');

  // variation: slow-loris receivers (headers trickle one byte a second)
  for (let i = 0; i < 10; i++)
    await call('POST', `${OR}/api/v1/webhooks`, {
      headers: B,
      body: { url: `http://127.0.0.1:${TRICKLE_PORT}/slow${i}`, events },
    });
  for (let i = 0; i < 3; i++) await runPlan(B);
  await measure('variation: plus slow-loris receivers of org B');

  // variation: org A's own second, dead receiver must not hold its live one
  await call('POST', `${OR}/api/v1/webhooks`, {
    headers: A,
    body: { url: `http://127.0.0.1:${18190}/dead-a`, events: ['plan.completed'] },
  });
  await measure('variation: org A also has a dead receiver');

  const d = await call('GET', `${OR}/api/v1/webhooks/${hookA.body?.id}/deliveries`, { headers: A });
  record(
    T,
    "org A's delivery log",
    d.status,
    '',
    'info',
    (d.body?.deliveries ?? [])
      .slice(0, 6)
      .map((x) => `${x.status}/${x.attempts}`)
      .join(' '),
  );
  await stopSteward();
}

// ================================================================================================ community run

async function communityRun() {
  const T = '6 API key revocation (community mode)';
  const dir = join(WORK, 'community');
  rmSync(dir, { recursive: true, force: true });
  writeManifests(
    join(dir, 'manifests'),
    connectorDoc('pg-a', 'postgres', 'RERUN_PG_URL', ['community'], { readOnly: true, allowedTables: ['orders'] }),
  );
  const health = await startSteward(
    {
      STEWARD_DATA_DIR: join(dir, 'data'),
      STEWARD_MANIFESTS: join(dir, 'manifests'),
      STEWARD_BUILTIN_POLICY_PACK: 'disabled',
      RERUN_PG_URL: PG_URL,
    },
    { label: 'community' },
  );
  record(T, 'community mode', '', '', 'info', JSON.stringify(health).slice(0, 120));
  const made = await call('POST', `${GW}/api/clients`, { body: { name: 'community-key' } });
  record(
    T,
    'create a client with no credentials',
    made.status,
    codeOf(made),
    made.status === 201 ? 'ok' : 'info',
    made.text.slice(0, 80),
  );
  if (made.body?.api_key) await revocationChecks(T, { key: made.body.api_key, id: made.body.id, lic: {} }, 'community');
  const bogus = await preCheck(bearer('client-not-a-real-key'), 'hello');
  record(T, 'unknown API key in community mode', bogus.status, codeOf(bogus), 'info');
  const t = await call('POST', `${GW}/api/clients`, {
    headers: { 'x-tenant-id': 't9' },
    body: { name: 'community-t9' },
  });
  if (t.body?.api_key) {
    const other = await call('GET', `${OR}/api/v1/policies`, {
      headers: { ...bearer(t.body.api_key), 'x-tenant-id': 't1' },
    });
    record(
      T,
      'community: tenant key + X-Tenant-ID t1',
      other.status,
      codeOf(other),
      other.status >= 400 ? 'refused' : 'ALLOWED',
    );
    const del = await call('DELETE', `${GW}/api/clients/${made.body?.id}`, { headers: bearer(t.body.api_key) });
    record(
      T,
      'community: tenant key revokes another client',
      del.status,
      codeOf(del),
      del.status >= 400 ? 'refused' : 'ALLOWED',
    );
  }
  await stopSteward();
}

// ================================================================================================ main

async function main() {
  const started = Date.now();
  await startServers({ blackholes: 91 });
  try {
    if (which === 'licensed' || which === 'all') await licensedRun();
    if (which === 'fairness' || which === 'all') await fairnessRun();
    if (which === 'community' || which === 'all') await communityRun();
  } catch (e) {
    record('run', 'aborted', '', '', 'error', `${e.stack ?? e}`.slice(0, 600));
  } finally {
    await stopSteward();
    await stopServers();
  }
  const out = join(WORK, `results-${which}.json`);
  writeFileSync(
    out,
    JSON.stringify(
      { at: new Date().toISOString(), seconds: Math.round((Date.now() - started) / 1000), results },
      null,
      2,
    ),
  );
  const bad = results.filter((r) => /LEAKED|FAIL|BYPASSED|ACCEPTED|ALLOWED|SLOW/.test(r.outcome));
  console.log(`\n${results.length} checks, ${bad.length} flagged; results in ${out}`);
  for (const r of bad) console.log(`  ${r.attack} | ${r.variant} | ${r.status} ${r.code} | ${r.outcome} | ${r.note}`);
}

await main();
process.exit(0);
