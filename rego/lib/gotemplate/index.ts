/**
 * A subset of Go's text/template, as OPA's strings.render_template uses it: text, actions with
 * trimming and comments, if/else, range (with break and continue), with, variables, fields,
 * literals, pipes and the predefined functions, executed with `missingkey=error`. Output and error
 * texts are Go's.
 *
 * API: renderTemplate(src, data: TemplateValue, onStep) → string; parseTemplate(src) and
 * executeTemplate(nodes, data, onStep); failures throw TemplateError. Data is JSON-shaped:
 * null, booleans, strings, JSONNumber, arrays and Map<string, TemplateValue>.
 */
export { JSONNumber, TemplateError, type TemplateValue } from './data.js';
export { executeTemplate, renderTemplate } from './exec.js';
export { parseTemplate, type TNode } from './parse.js';
