/** The regex family: regex.* (lib/goregex, lib/globintersect). */
export { register } from './regex.js';
