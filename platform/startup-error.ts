/**
 * Failures at start that a person fixes by changing one setting: a port in use, a database or Redis that does not
 * answer or refuses the credentials, a manifest folder that does not exist. The CLI prints the message as one line
 * and exits 2 (the stack only with LOG_LEVEL=debug). No imports: the CLI loads this before anything heavy.
 */
export class StartupError extends Error {
  constructor(
    /** The environment variable to change, e.g. `STEWARD_GATEWAY_PORT`. */
    readonly setting: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StartupError';
  }
}

/** The first `code` along the cause chain: node's `EADDRINUSE`, PostgreSQL's SQLSTATE `28P01`. */
function codeOf(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    // NB: an AggregateError (node's happy-eyeballs connect) carries the codes of its attempts.
    const inner = (e as { errors?: unknown[] }).errors;
    if (Array.isArray(inner) && inner.length) return codeOf(inner[0]);
  }
  return undefined;
}

function messageOf(err: unknown): string {
  let e = err;
  while ((e as { cause?: unknown })?.cause instanceof Error) e = (e as { cause: unknown }).cause;
  return e instanceof Error ? e.message : String(e);
}

const NETWORK: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'timed out',
  ECONNRESET: 'connection reset',
};

/** `host:port` of a URL, never its credentials. */
export function endpointOf(url: string, defaultPort: number): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || defaultPort}`;
  } catch {
    return '(unparsable URL)';
  }
}

/** A listener that could not bind: the port's setting, or STEWARD_HOST when the address is the problem. */
export function listenFailure(err: unknown, portSetting: string, host: string, port: number): StartupError {
  const code = codeOf(err);
  const at = `${host}:${port}`;
  if (code === 'EADDRINUSE')
    return new StartupError(
      portSetting,
      `${portSetting}: port ${port} is already in use (${at}); stop the other process or set ${portSetting} to a free port`,
      { cause: err },
    );
  if (code === 'EACCES')
    return new StartupError(
      portSetting,
      `${portSetting}: not allowed to listen on ${at}; set ${portSetting} to a port above 1023`,
      { cause: err },
    );
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new StartupError(
      'STEWARD_HOST',
      `STEWARD_HOST: cannot listen on ${host} (not an address of this machine); set STEWARD_HOST to 127.0.0.1 or 0.0.0.0`,
      { cause: err },
    );
  return new StartupError(portSetting, `${portSetting}: cannot listen on ${at}: ${messageOf(err)}`, { cause: err });
}

/** PostgreSQL that cannot be reached or refuses us. SQLSTATE classes 28 (credentials) and 3D000 (no such database). */
export function databaseFailure(err: unknown, url: string): StartupError {
  const code = codeOf(err);
  const at = endpointOf(url, 5432);
  const text = messageOf(err);
  const fail = (message: string) => new StartupError('DATABASE_URL', `DATABASE_URL: ${message}`, { cause: err });
  if (code && NETWORK[code])
    return fail(
      `cannot reach PostgreSQL at ${at} (${NETWORK[code]}); fix DATABASE_URL or start the database (unset DATABASE_URL for the embedded PGlite)`,
    );
  if (/timeout|timed out/i.test(text))
    return fail(`PostgreSQL at ${at} did not answer in time; fix DATABASE_URL or check the database`);
  if (code === '28P01' || code === '28000')
    return fail(`PostgreSQL at ${at} refused the credentials (${text}); fix the user or password in DATABASE_URL`);
  if (code === '3D000') return fail(`PostgreSQL at ${at}: ${text}; create it or fix the database name in DATABASE_URL`);
  return fail(`PostgreSQL at ${at} failed: ${text}; check DATABASE_URL`);
}

/** The embedded database could not be opened: the data folder is the setting to look at. */
export function embeddedDatabaseFailure(err: unknown, dataDir: string): StartupError {
  return new StartupError(
    'STEWARD_DATA_DIR',
    `STEWARD_DATA_DIR: cannot open the embedded database in ${dataDir}: ${messageOf(err)}; check the folder or set STEWARD_DATA_DIR`,
    { cause: err },
  );
}

/** Redis that did not answer a PING at start. */
export function redisFailure(err: unknown, url: string, timeoutMs: number): StartupError {
  const code = codeOf(err);
  const reason =
    code && NETWORK[code] ? NETWORK[code] : err === undefined ? `no answer within ${timeoutMs} ms` : messageOf(err);
  return new StartupError(
    'REDIS_URL',
    `REDIS_URL: cannot reach Redis at ${endpointOf(url, 6379)} (${reason}); fix REDIS_URL or unset it to keep rate-limit counters in memory`,
    { cause: err },
  );
}
