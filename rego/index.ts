/**
 * Steward's Rego engine — public surface. Compile modules once, evaluate many times:
 *
 *   const policy = compile([{ name: 'policy.rego', source }]);
 *   policy.evalRef('data.pkg.allow', { input });
 *   decide(policy, 'pkg', input, { deadlineMs: 50 });
 */
export { compile, PreparedPolicy } from './engine.js';
export type { Bindings, CompileOptions, EvalOptions, ModuleSource } from './engine.js';
export { decide, DEFAULT_DECISION_LIMITS } from './decision.js';
export type { Decision, DecisionError, DecisionLimits } from './decision.js';
export { PolicySet, PolicySetCache } from './policyset.js';
export type { PolicyAction, PolicyDecision, PolicyModule, PolicySetResult } from './policyset.js';
export {
  BuiltinError,
  OperandError,
  RegoCompileError,
  RegoError,
  RegoEvalError,
  RegoLimitError,
  RegoParseError,
  operandError,
} from './errors.js';
export type { Diagnostic, LimitKind, Location, RegoErrorCode } from './errors.js';
export { parseModule } from './syntax/module.js';
export { createRegistry, defaultRegistry, BuiltinRegistry } from './builtins/index.js';
export type { BuiltinContext, BuiltinDecl, BuiltinImpl } from './builtins/index.js';
export * from './value.js';
