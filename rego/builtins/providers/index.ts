/** The providers family: providers.aws.sign_req. */
export { register } from './providers.js';
