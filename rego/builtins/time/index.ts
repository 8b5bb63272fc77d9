/** The time family: time.* (lib/gotime). */
export { register } from './time.js';
