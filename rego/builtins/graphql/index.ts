/** The graphql family: graphql.* (lib/graphql). */
export { register } from './graphql.js';
