/**
 * Child process of the proxy benchmark: Portkey's gateway (`@portkey-ai/gateway` `build/start-server.js`, the same
 * arguments), with one repair so that its streams work. Prints PATCHED once the repair is in place.
 *
 * NB: Portkey answers every stream with 500 "Something went wrong" (`TypeError: immutable` in
 * `ResponseService.updateHeaders`) when `@hono/node-server` is newer than 1.14.2 (Portkey-AI/gateway#1389, #1550):
 * since honojs/node-server#242 its lightweight `Response`, built with a fetch `Response` as `init`, keeps that
 * response's immutable `Headers`, which Portkey then appends to. Our tree has 1.19 (the MCP SDK's range, which
 * npm shares with Portkey's `^1.3.3`). The repair is what 1.14.2 did: such an `init` is copied into a plain one
 * with its own `Headers`. Only that case changes; the lightweight class and everything else stay Portkey's.
 *
 * Imports nothing of ours, so that node runs it as it is (type stripping). Usage: `node bench/portkey-server.ts --port=N --headless`.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const NativeResponse = globalThis.Response;
const require = createRequire(import.meta.url);
const script = join(dirname(require.resolve('@portkey-ai/gateway/package.json')), 'build/start-server.js');

// Top-level await: resolves once Portkey listens (its `serve()` has replaced globalThis.Response by then).
await import(script);

const Lightweight = globalThis.Response;
if (Lightweight !== NativeResponse) {
  globalThis.Response = new Proxy(Lightweight, {
    construct(target, args: [unknown, ResponseInit | Response | undefined], newTarget) {
      const [body, init] = args;
      const copied =
        init instanceof NativeResponse && Object.getPrototypeOf(init) === NativeResponse.prototype
          ? { status: init.status, statusText: init.statusText, headers: new Headers(init.headers) }
          : init;
      return Reflect.construct(target, [body, copied], newTarget) as object;
    },
  });
}
console.log('PATCHED');
