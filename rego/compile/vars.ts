/** Vars a user wrote in an expression (for deciding which query variables are results). */
import type { Expr } from '../syntax/ast.js';
import { exprVars } from '../syntax/walk.js';

export function exprVarsOf(e: Expr): Set<string> {
  const out = exprVars(e, { skipCallOp: true, skipClosures: true });
  out.delete('data');
  out.delete('input');
  return out;
}
