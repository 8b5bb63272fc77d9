/** The jsonschema family: json.verify_schema and json.match_schema (lib/jsonschema). */
export { register } from './jsonschema.js';
