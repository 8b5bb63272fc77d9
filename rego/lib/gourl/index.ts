/**
 * Go's net/url.Parse as of Go 1.26, with Go's error texts (including netip.ParseAddr's for
 * bracketed hosts), as OPA's uri.parse and uri.is_valid use it.
 *
 * API: parseURL(raw) → { scheme, host, path, rawPath, rawQuery, fragment } (throws URLParseError);
 * splitHostPort(host) → [hostname, port] (URL.Hostname and URL.Port).
 */
export { URLParseError, parseURL, splitHostPort, type URL } from './parse.js';
