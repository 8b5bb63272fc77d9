import type { SqlDialect } from './lexer.js';

/**
 * Functions a read-only connector never runs: they sleep or lock (denial of service), read or write
 * server files, open connections elsewhere, change settings or sequences, signal backends, or run SQL
 * given as a string (which would bypass the guard). Matched on the bare, lower-cased name, with or
 * without a schema. Prefixes end in `*`.
 */
const POSTGRES: readonly string[] = [
  'pg_sleep*', 'pg_advisory_*', 'pg_try_advisory_*',
  'dblink*', 'lo_*', 'loread', 'lowrite',
  'pg_read_file', 'pg_read_binary_file', 'pg_ls_*', 'pg_stat_file', 'pg_file_*',
  'pg_terminate_backend', 'pg_cancel_backend', 'pg_reload_conf', 'pg_rotate_logfile', 'pg_signal_backend',
  'pg_promote', 'pg_switch_wal', 'pg_create_*', 'pg_drop_replication_slot', 'pg_replication_origin_*',
  'pg_logical_*', 'pg_backup_*', 'pg_start_backup', 'pg_stop_backup', 'pg_import_system_collations',
  'set_config', 'nextval', 'setval', 'pg_notify', 'txid_current', 'pg_current_xact_id',
  'query_to_xml', 'query_to_xml_and_xmlschema', 'query_to_xmlschema', 'cursor_to_xml', 'cursor_to_xmlschema',
  'table_to_xml*', 'schema_to_xml*', 'database_to_xml*',
  'copy', 'pg_execute_server_program',
];

const MYSQL: readonly string[] = [
  'sleep', 'benchmark', 'load_file', 'get_lock', 'release_lock', 'release_all_locks', 'is_free_lock', 'is_used_lock',
  'master_pos_wait', 'source_pos_wait', 'master_gtid_wait', 'wait_for_executed_gtid_set', 'wait_until_sql_thread_after_gtids',
  'sys_exec', 'sys_eval', 'nextval', 'setval', 'lastval', 'name_const',
];

export function deniedFunctionMatcher(dialect: SqlDialect, extra: readonly string[]): (name: string) => boolean {
  const entries = [...(dialect === 'postgresql' ? POSTGRES : MYSQL), ...extra.map((e) => e.toLowerCase())];
  const exact = new Set(entries.filter((e) => !e.endsWith('*')));
  const prefixes = entries.filter((e) => e.endsWith('*')).map((e) => e.slice(0, -1));
  return (name) => {
    const n = name.toLowerCase();
    return exact.has(n) || prefixes.some((p) => n.startsWith(p));
  };
}
