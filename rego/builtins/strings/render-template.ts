/**
 * strings.render_template over Go's text/template (lib/gotemplate): the variables object goes
 * through OPA's JSON round trip first — numbers become json.Number, sets become arrays, non-string
 * keys their Rego text — and template failures become builtin errors.
 */
import { JSONNumber, TemplateError, renderTemplate, type TemplateValue } from '../../lib/gotemplate/index.js';
import { NumLit, RObject, RSet, toRegoText, type Value } from '../../value.js';
import { libraryCall } from '../lib-errors.js';

/** The template data OPA's JSON round trip makes of a Rego value. */
function templateData(v: Value): TemplateValue {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return new JSONNumber(String(v));
  if (v instanceof NumLit) return new JSONNumber(v.text);
  if (Array.isArray(v)) return v.map(templateData);
  if (v instanceof RSet) return v.values().map(templateData);
  const m = new Map<string, TemplateValue>();
  for (const [k, x] of (v as RObject).entries()) m.set(typeof k === 'string' ? k : toRegoText(k), templateData(x));
  return m;
}

/** strings.render_template(template, vars) */
export function renderTemplateValue(src: string, vars: RObject, onStep: () => void): string {
  return libraryCall([TemplateError], () => renderTemplate(src, templateData(vars), onStep));
}
