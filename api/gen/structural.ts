/**
 * Turns zod's OpenAPI 3.0 JSON Schema output into a Kubernetes structural schema: no
 * `additionalProperties: false` beside `properties`, no zod-added safe-integer bounds, and
 * `x-kubernetes-preserve-unknown-fields` where the schema accepts anything.
 */
type Schema = Record<string, unknown>;

const SAFE = Number.MAX_SAFE_INTEGER;

export function toStructural(input: unknown): Schema {
  const s = { ...(input as Schema) };
  delete s.$schema;
  delete s.propertyNames;
  if (s.maximum === SAFE) delete s.maximum;
  if (s.minimum === -SAFE) delete s.minimum;
  if (s.additionalProperties === false) delete s.additionalProperties;

  if (s.properties) {
    const props: Schema = {};
    for (const [key, value] of Object.entries(s.properties as Schema)) props[key] = toStructural(value);
    s.properties = props;
  }
  if (s.items) s.items = toStructural(s.items);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') {
    const inner = s.additionalProperties as Schema;
    if (Object.keys(inner).length === 0) {
      delete s.additionalProperties;
      s['x-kubernetes-preserve-unknown-fields'] = true;
    } else {
      s.additionalProperties = toStructural(inner);
    }
  }
  // NB: `{}` (z.unknown()) has no type; a structural schema needs one or the preserve marker.
  if (s.type === undefined && !s.properties && !s.anyOf && !s.allOf) s['x-kubernetes-preserve-unknown-fields'] = true;
  return s;
}
