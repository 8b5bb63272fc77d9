/**
 * A throwaway certificate for TLS tests: a self-signed P-256 certificate for 127.0.0.1 and localhost, valid for one
 * day, made by the openssl command (on every CI machine; a test that needs one fails, not skips, without it).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ThrowawayCertificate {
  certFile: string;
  keyFile: string;
  /** The certificate's PEM, for clients to trust (`ca`). */
  cert: string;
}

export function throwawayCertificate(dir: string, name = 'tls'): ThrowawayCertificate {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { certFile, keyFile, cert: readFileSync(certFile, 'utf8') };
}
