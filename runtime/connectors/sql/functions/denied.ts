/**
 * Functions a confined connector never runs, whatever `allowedFunctions` says: they sleep or lock (denial of
 * service), read or write server files, open connections elsewhere, change settings, sequences or the random
 * seed, signal backends, or run SQL given as a string (which the guard cannot see). Matched on the bare,
 * lower-cased name, with or without a schema. Prefixes end in `*`.
 */
export const POSTGRES_DENIED: readonly string[] = [
  'pg_sleep*', 'pg_advisory_*', 'pg_try_advisory_*',
  'dblink*', 'lo_*', 'loread', 'lowrite',
  'pg_read_file', 'pg_read_binary_file', 'pg_ls_*', 'pg_stat_file', 'pg_file_*',
  'pg_terminate_backend', 'pg_cancel_backend', 'pg_reload_conf', 'pg_rotate_logfile', 'pg_signal_backend',
  'pg_promote', 'pg_switch_wal', 'pg_create_*', 'pg_drop_replication_slot', 'pg_replication_origin_*',
  'pg_logical_*', 'pg_backup_*', 'pg_start_backup', 'pg_stop_backup', 'pg_import_system_collations',
  'set_config', 'setseed', 'nextval', 'setval', 'pg_notify', 'txid_current', 'pg_current_xact_id',
  'query_to_xml', 'query_to_xml_and_xmlschema', 'query_to_xmlschema', 'cursor_to_xml', 'cursor_to_xmlschema',
  'table_to_xml*', 'schema_to_xml*', 'database_to_xml*', 'ts_stat', 'ts_rewrite',
  'copy', 'pg_execute_server_program',
];

export const MYSQL_DENIED: readonly string[] = [
  'sleep', 'benchmark', 'load_file', 'get_lock', 'release_lock', 'release_all_locks', 'is_free_lock', 'is_used_lock',
  'master_pos_wait', 'source_pos_wait', 'master_gtid_wait', 'wait_for_executed_gtid_set', 'wait_until_sql_thread_after_gtids',
  'sys_exec', 'sys_eval', 'nextval', 'setval', 'lastval', 'name_const',
];
