import { readFile } from 'node:fs/promises';
import { StartupError } from '../../platform/startup-error.js';
import type { HttpTls } from './app.js';
import type { TlsFiles } from '../settings.js';

/** The certificate and key files' contents (STEWARD_TLS_CERT_FILE and STEWARD_TLS_KEY_FILE), or undefined without. */
export async function readTlsSettings(files: TlsFiles | undefined): Promise<HttpTls | undefined> {
  if (files === undefined) return undefined;
  const [cert, key] = await Promise.all([
    readSettingFile('STEWARD_TLS_CERT_FILE', files.certFile),
    readSettingFile('STEWARD_TLS_KEY_FILE', files.keyFile),
  ]);
  return { cert, key };
}

/** A file a setting names; unreadable is a StartupError naming the setting (exit 2). */
export async function readSettingFile(setting: string, file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (err) {
    throw new StartupError(setting, `${setting}: cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
}
