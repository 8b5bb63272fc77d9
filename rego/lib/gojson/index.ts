/**
 * Go's encoding/json as OPA applies it to Rego values: Marshal and MarshalIndent (HTML-safe
 * escaping, sorted keys, non-string keys as JSON text), Valid, and OPA's util.UnmarshalJSON with
 * encoding/json's error texts, keeping number text exact (json.Number).
 *
 * NB: an exception to lib/ holding no Rego values: this is the codec between Rego's data model and
 * Go's JSON text, so it reads and builds Rego `Value`s (sets, non-string keys and number literals
 * carry meaning no plain JS value has).
 *
 * API: marshalJSON(v), marshalJSONIndent(v, prefix, indent), quoteJSON(s, escapeHTML?),
 * validJSON(text), unmarshalJSON(text) → Value (throws GoJSONError).
 */
export { GoJSONError, marshalJSON, marshalJSONIndent, quoteJSON, unmarshalJSON, validJSON } from './json.js';
