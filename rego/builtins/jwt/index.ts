/** The jwt family: io.jwt.* (lib/jose, lib/x509). */
export { register } from './jwt.js';
