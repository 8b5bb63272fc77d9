/** The uuid family: uuid.rfc4122 and uuid.parse. */
export { register } from './uuid.js';
