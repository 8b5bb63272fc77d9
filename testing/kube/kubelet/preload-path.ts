/** Where the DNS preload script lives (given to Node.js containers as NODE_OPTIONS=--import=...). */
import { fileURLToPath } from 'node:url';

export const DNS_PRELOAD = fileURLToPath(new URL('./dns-preload.mjs', import.meta.url));
