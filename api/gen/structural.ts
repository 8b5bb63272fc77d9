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

/**
 * Paths of the fields that carry no description, so that `kubectl explain` would print `<empty>` for them.
 * Array items and map values are described by their field.
 */
export function undescribedFields(schema: Schema, path: string): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    const at = `${path}.${key}`;
    if (typeof value.description !== 'string' || value.description === '') out.push(at);
    out.push(...undescribedFields(value, at));
  }
  const items = schema.items as Schema | undefined;
  if (items) out.push(...undescribedFields(items, `${path}[]`));
  const values = schema.additionalProperties;
  if (values && typeof values === 'object') out.push(...undescribedFields(values as Schema, `${path}{}`));
  return out;
}
