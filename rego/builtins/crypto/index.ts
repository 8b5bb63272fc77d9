/** The crypto family: crypto.* (lib/x509). */
export { register } from './crypto.js';
