/**
 * Credentials for http and mcp connectors come from the connection URL (a Secret or an environment
 * variable), never from `spec.options`, which is not secret. `https://user:pass@host/` sends Basic
 * authentication; the user name `bearer` sends the password as a Bearer token
 * (`https://bearer:TOKEN@host/mcp`). The URL handed to the client has no credentials.
 */
export function splitCredentials(url: string): { url: string; headers: Record<string, string> } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { url, headers: {} };
  }
  if (!u.username && !u.password) return { url, headers: {} };
  const user = decodeURIComponent(u.username);
  const pass = decodeURIComponent(u.password);
  u.username = '';
  u.password = '';
  const authorization =
    user.toLowerCase() === 'bearer' ? `Bearer ${pass}` : `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  return { url: u.toString(), headers: { authorization } };
}
