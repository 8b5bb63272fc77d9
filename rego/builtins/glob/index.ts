/** The glob family: glob.match and glob.quote_meta (lib/glob). */
export { register } from './glob.js';
