/**
 * Library failures as builtin errors. A library in rego/lib reports bad input with its own error
 * class and the original library's message; the adapter that calls it turns those into BuiltinErrors
 * with the same message (OPA's topdown wraps a Go library's error the same way), and lets anything
 * else, such as a limit error from a step callback, pass unchanged.
 */
import { BuiltinError } from '../errors.js';

type ErrorClass = abstract new (...args: never[]) => Error;

/** Runs `f`, rethrowing an error of one of `failures` as a BuiltinError with its message. */
export function libraryCall<T>(failures: readonly ErrorClass[], f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (failures.some((c) => e instanceof c)) throw new BuiltinError((e as Error).message, { cause: e });
    throw e;
  }
}
