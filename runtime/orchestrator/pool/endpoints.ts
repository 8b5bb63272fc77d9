// NB: no imports: cmd/config/env.ts uses this while parsing the environment, before anything heavy loads.

/**
 * Checks one agent endpoint of STEWARD_AGENT_ENDPOINTS: an absolute http or https URL of an agent's
 * origin (scheme, host, optional port; no path, query, fragment or credentials).
 * Returns the problem in words, or undefined when the endpoint is good.
 */
export function endpointProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `"${text}" is not a URL; write e.g. http://agent-0:9000`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `"${text}" must use http or https, not ${url.protocol}`;
  if (url.username || url.password) return `"${text}" must not carry credentials`;
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    return `"${text}" must be an origin only (scheme, host, port), without a path, query or fragment`;
  }
  return undefined;
}

/** Splits a comma-separated endpoint list; blank entries are ignored. */
export function splitEndpoints(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
