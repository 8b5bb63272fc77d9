/**
 * PostgreSQL functions a confined connector may call without `allowedFunctions`: pure computations on the
 * values of the statement (aggregates, window functions, strings, numbers, dates, JSON, arrays, ranges,
 * text search on given text, casts written as calls). Each one reads nothing but its arguments (plus the
 * clock or a random generator), writes nothing, and takes no SQL text.
 *
 * Left out on purpose: anything that runs SQL text (query_to_xml, ts_stat, ts_rewrite, dblink), touches
 * files or large objects, sleeps or locks, changes settings, sequences or the random seed (set_config,
 * nextval, setval, setseed), or reads the server, the session or the catalogue: version, current_setting,
 * current_user/session_user/user, current_schema(s), current_database, inet_server_addr/port,
 * inet_client_addr/port, txid_*, has_*_privilege, obj_description, to_regclass, and every pg_* function but
 * pg_typeof. Names are the bare names; `pg_catalog.name` is the same function.
 */
export const POSTGRES_ALLOWED: readonly string[] = [
  // node-sql-parser reports these pieces of syntax as calls
  'not', 'exists', 'any', 'some', 'all', 'row', 'array', 'rollup', 'cube',
  // aggregates
  'count', 'sum', 'avg', 'min', 'max', 'array_agg', 'string_agg', 'bool_and', 'bool_or', 'every', 'bit_and', 'bit_or',
  'bit_xor', 'json_agg', 'jsonb_agg', 'json_object_agg', 'jsonb_object_agg', 'json_agg_strict', 'jsonb_agg_strict',
  'json_object_agg_strict', 'jsonb_object_agg_strict', 'json_object_agg_unique', 'jsonb_object_agg_unique', 'range_agg',
  'range_intersect_agg', 'stddev', 'stddev_pop', 'stddev_samp', 'variance', 'var_pop', 'var_samp', 'corr', 'covar_pop',
  'covar_samp', 'regr_avgx', 'regr_avgy', 'regr_count', 'regr_intercept', 'regr_r2', 'regr_slope', 'regr_sxx', 'regr_sxy',
  'regr_syy', 'mode', 'percentile_cont', 'percentile_disc', 'any_value', 'grouping',
  // window functions
  'row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile', 'lag', 'lead', 'first_value', 'last_value', 'nth_value',
  // conditional
  'coalesce', 'nullif', 'greatest', 'least', 'num_nulls', 'num_nonnulls',
  // math
  'abs', 'cbrt', 'ceil', 'ceiling', 'degrees', 'div', 'exp', 'factorial', 'floor', 'gcd', 'lcm', 'ln', 'log', 'log10',
  'min_scale', 'mod', 'pi', 'power', 'round', 'scale', 'sign', 'sqrt', 'trim_scale', 'trunc', 'width_bucket', 'acos',
  'acosd', 'asin', 'asind', 'atan', 'atand', 'atan2', 'atan2d', 'cos', 'cosd', 'cot', 'cotd', 'sin', 'sind', 'tan', 'tand',
  'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh', 'random', 'random_normal', 'erf', 'erfc',
  // strings and bytes
  'ascii', 'bit_length', 'btrim', 'char_length', 'character_length', 'chr', 'concat', 'concat_ws', 'format', 'initcap',
  'left', 'length', 'lower', 'lpad', 'ltrim', 'md5', 'normalize', 'octet_length', 'overlay', 'position', 'quote_ident',
  'quote_literal', 'quote_nullable', 'regexp_count', 'regexp_instr', 'regexp_like', 'regexp_match', 'regexp_matches',
  'regexp_replace', 'regexp_split_to_array', 'regexp_split_to_table', 'regexp_substr', 'repeat', 'replace', 'reverse',
  'right', 'rpad', 'rtrim', 'split_part', 'starts_with', 'strpos', 'substr', 'substring', 'translate', 'trim', 'unistr',
  'upper', 'casefold', 'to_hex', 'to_bin', 'to_oct', 'to_ascii', 'encode', 'decode', 'sha224', 'sha256', 'sha384',
  'sha512', 'crc32', 'crc32c', 'convert', 'convert_from', 'convert_to', 'string_to_array', 'string_to_table',
  'array_to_string', 'bit_count', 'get_bit', 'get_byte', 'set_bit', 'set_byte',
  // formatting and casts written as calls
  'to_char', 'to_date', 'to_number', 'to_timestamp', 'int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'text',
  'bool', 'date', 'varchar', 'bpchar', 'pg_typeof',
  // date and time
  'age', 'clock_timestamp', 'current_date', 'current_time', 'current_timestamp', 'localtime', 'localtimestamp',
  'date_add', 'date_bin', 'date_part', 'date_subtract', 'date_trunc', 'extract', 'isfinite', 'justify_days',
  'justify_hours', 'justify_interval', 'make_date', 'make_interval', 'make_time', 'make_timestamp', 'make_timestamptz',
  'now', 'statement_timestamp', 'timeofday', 'transaction_timestamp', 'timezone',
  // JSON
  'to_json', 'to_jsonb', 'array_to_json', 'row_to_json', 'json_build_array', 'jsonb_build_array', 'json_build_object',
  'jsonb_build_object', 'json_object', 'jsonb_object', 'json_array_elements', 'jsonb_array_elements',
  'json_array_elements_text', 'jsonb_array_elements_text', 'json_array_length', 'jsonb_array_length', 'json_each',
  'jsonb_each', 'json_each_text', 'jsonb_each_text', 'json_extract_path', 'jsonb_extract_path', 'json_extract_path_text',
  'jsonb_extract_path_text', 'json_object_keys', 'jsonb_object_keys', 'json_populate_record', 'jsonb_populate_record',
  'json_populate_recordset', 'jsonb_populate_recordset', 'json_to_record', 'jsonb_to_record', 'json_to_recordset',
  'jsonb_to_recordset', 'json_strip_nulls', 'jsonb_strip_nulls', 'jsonb_set', 'jsonb_set_lax', 'jsonb_insert',
  'jsonb_path_exists', 'jsonb_path_match', 'jsonb_path_query', 'jsonb_path_query_array', 'jsonb_path_query_first',
  'jsonb_path_exists_tz', 'jsonb_path_match_tz', 'jsonb_path_query_tz', 'jsonb_path_query_array_tz',
  'jsonb_path_query_first_tz', 'jsonb_pretty', 'json_typeof', 'jsonb_typeof',
  // arrays and set-returning
  'array_append', 'array_cat', 'array_dims', 'array_fill', 'array_length', 'array_lower', 'array_ndims', 'array_position',
  'array_positions', 'array_prepend', 'array_remove', 'array_replace', 'array_upper', 'array_sample', 'array_shuffle',
  'array_reverse', 'array_sort', 'cardinality', 'trim_array', 'unnest', 'generate_subscripts', 'generate_series',
  // ranges
  'int4range', 'int8range', 'numrange', 'tsrange', 'tstzrange', 'daterange', 'isempty', 'lower_inc', 'upper_inc',
  'lower_inf', 'upper_inf', 'range_merge', 'multirange',
  // text search on the given text
  'to_tsvector', 'to_tsquery', 'plainto_tsquery', 'phraseto_tsquery', 'websearch_to_tsquery', 'ts_rank', 'ts_rank_cd',
  'ts_headline', 'setweight', 'strip', 'numnode', 'querytree', 'tsvector_to_array', 'array_to_tsvector', 'ts_delete', 'ts_filter',
  // network addresses, identifiers
  'host', 'masklen', 'network', 'broadcast', 'family', 'netmask', 'hostmask', 'abbrev', 'gen_random_uuid', 'uuidv4', 'uuidv7',
];
