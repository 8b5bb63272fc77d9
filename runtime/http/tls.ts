import { readFile } from 'node:fs/promises';
import { StartupError } from '../../platform/startup-error.js';
import type { HttpTls } from './app.js';

/** The certificate and key of STEWARD_TLS_CERT_FILE and STEWARD_TLS_KEY_FILE, or undefined when neither is set. */
export async function readTlsSettings(config: {
  STEWARD_TLS_CERT_FILE?: string;
  STEWARD_TLS_KEY_FILE?: string;
}): Promise<HttpTls | undefined> {
  if (config.STEWARD_TLS_CERT_FILE === undefined || config.STEWARD_TLS_KEY_FILE === undefined) return undefined;
  const [cert, key] = await Promise.all([
    readSettingFile('STEWARD_TLS_CERT_FILE', config.STEWARD_TLS_CERT_FILE),
    readSettingFile('STEWARD_TLS_KEY_FILE', config.STEWARD_TLS_KEY_FILE),
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
