/** Collections: aggregates (count, sum, sort …), arrays, sets, and graphs (walk, graph.reachable*). */
import type { BuiltinRegistry } from '../registry.js';
import * as aggregates from './aggregates.js';
import * as arrays from './arrays.js';
import * as sets from './sets.js';
import * as graph from './graph.js';
import * as walk from './walk.js';

/** Registers the family's builtins. */
export function register(r: BuiltinRegistry): void {
  aggregates.register(r);
  arrays.register(r);
  sets.register(r);
  graph.register(r);
  walk.register(r);
}
