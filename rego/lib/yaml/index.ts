/**
 * go-yaml v2's encoder (yaml.Marshal) as OPA's yaml.marshal uses it: block style, keys in yaml.v2's
 * natural order, libyaml's scalar styles and its folding of long scalars at 80 columns.
 *
 * API: emitYAML(node: YamlNode) → string, where a YamlNode is JSON-shaped data as yaml.v2 reads it
 * (bigint integers, float numbers, Map objects); naturalLess(a, b) (yaml.v2's key order).
 */
export { emitYAML, naturalLess, type YamlNode } from './emit.js';
