/**
 * MySQL and MariaDB functions a confined connector may call without `allowedFunctions`: pure computations
 * on the statement's values (aggregates, window functions, strings, numbers, dates, JSON, conversions).
 *
 * Left out on purpose: sleep, benchmark, locks, load_file, replication waits (deny list); everything that
 * reads the server or the session: user, current_user, session_user, system_user, current_role, database,
 * schema, version, connection_id, last_insert_id, found_rows, row_count (the previous caller's on a pooled
 * connection), charset, collation, coercibility; uuid, uuid_short and sys_guid (they carry the server's MAC
 * address or id); password functions, default, values, name_const. A call qualified with a database
 * (`db.fn()`) is a stored function, never one of these: it needs `allowedFunctions`.
 */
export const MYSQL_ALLOWED: readonly string[] = [
  // node-sql-parser reports these pieces of syntax as calls
  'not', 'exists', 'any', 'some', 'all', 'row', 'interval', 'convert', 'position', 'trim',
  // aggregates
  'count', 'sum', 'avg', 'min', 'max', 'group_concat', 'json_arrayagg', 'json_objectagg', 'bit_and', 'bit_or', 'bit_xor',
  'std', 'stddev', 'stddev_pop', 'stddev_samp', 'variance', 'var_pop', 'var_samp',
  // window functions
  'row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile', 'lag', 'lead', 'first_value', 'last_value', 'nth_value',
  // conditional
  'coalesce', 'nullif', 'ifnull', 'if', 'nvl', 'nvl2', 'greatest', 'least', 'isnull',
  // math
  'abs', 'acos', 'asin', 'atan', 'atan2', 'ceil', 'ceiling', 'conv', 'cos', 'cot', 'crc32', 'crc32c', 'degrees', 'exp',
  'floor', 'ln', 'log', 'log10', 'log2', 'mod', 'oct', 'pi', 'pow', 'power', 'radians', 'rand', 'round', 'sign', 'sin',
  'sqrt', 'tan', 'truncate', 'to_number', 'bit_count',
  // strings
  'ascii', 'bin', 'bit_length', 'char', 'chr', 'char_length', 'character_length', 'concat', 'concat_ws', 'elt',
  'export_set', 'field', 'find_in_set', 'format', 'format_bytes', 'from_base64', 'hex', 'insert', 'instr', 'lcase',
  'left', 'length', 'lengthb', 'locate', 'lower', 'lpad', 'ltrim', 'make_set', 'mid', 'natural_sort_key', 'octet_length',
  'ord', 'quote', 'regexp_instr', 'regexp_like', 'regexp_replace', 'regexp_substr', 'repeat', 'replace', 'reverse',
  'right', 'rpad', 'rtrim', 'sformat', 'soundex', 'space', 'strcmp', 'substr', 'substring', 'substring_index',
  'to_base64', 'to_char', 'ucase', 'unhex', 'upper', 'weight_string', 'md5', 'sha', 'sha1', 'sha2', 'compress',
  'uncompress', 'uncompressed_length',
  // date and time
  'adddate', 'addtime', 'add_months', 'convert_tz', 'curdate', 'current_date', 'current_time', 'current_timestamp',
  'curtime', 'date', 'date_add', 'date_format', 'date_sub', 'datediff', 'day', 'dayname', 'dayofmonth', 'dayofweek',
  'dayofyear', 'extract', 'format_pico_time', 'from_days', 'from_unixtime', 'get_format', 'hour', 'last_day',
  'localtime', 'localtimestamp', 'makedate', 'maketime', 'microsecond', 'minute', 'month', 'monthname',
  'months_between', 'now', 'period_add', 'period_diff', 'quarter', 'second', 'sec_to_time', 'str_to_date', 'subdate',
  'subtime', 'sysdate', 'time', 'timediff', 'timestamp', 'timestampadd', 'timestampdiff', 'time_format', 'time_to_sec',
  'to_date', 'to_days', 'to_seconds', 'trunc', 'unix_timestamp', 'utc_date', 'utc_time', 'utc_timestamp', 'week',
  'weekday', 'weekofyear', 'year', 'yearweek',
  // JSON
  'json_array', 'json_array_append', 'json_array_insert', 'json_array_intersect', 'json_compact', 'json_contains',
  'json_contains_path', 'json_depth', 'json_detailed', 'json_equals', 'json_exists', 'json_extract', 'json_insert',
  'json_keys', 'json_key_value', 'json_length', 'json_loose', 'json_merge', 'json_merge_patch', 'json_merge_preserve',
  'json_normalize', 'json_object', 'json_object_filter_keys', 'json_object_to_array', 'json_overlaps', 'json_pretty',
  'json_query', 'json_quote', 'json_remove', 'json_replace', 'json_schema_valid', 'json_search', 'json_set',
  'json_type', 'json_unquote', 'json_valid', 'json_value',
  // addresses and identifiers given as values
  'inet_aton', 'inet_ntoa', 'inet6_aton', 'inet6_ntoa', 'is_ipv4', 'is_ipv6', 'is_ipv4_compat', 'is_ipv4_mapped',
  'is_uuid', 'uuid_to_bin', 'bin_to_uuid', 'uuid_v4', 'uuid_v7',
];
