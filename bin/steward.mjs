#!/usr/bin/env node
// Runs the TypeScript CLI directly (tsx) in a checkout; the container image runs the compiled dist/ instead.
import nodeModule from 'node:module';
import { register } from 'tsx/esm/api';

// NB: npm scripts and npx run the Node.js 24 that `npm ci` installs (node_modules/.bin/node); a bare `node` may be older.
if (Number(process.versions.node.split('.')[0]) < 24) {
  console.error(
    `steward needs Node.js 24 or later, not ${process.version}: run it through npm (npm start, npx steward), which uses the Node.js 24 in node_modules/.bin`,
  );
  process.exit(1);
}
// V8's compiled code for every module, kept between runs (os.tmpdir()/node-compile-cache): a shorter start.
nodeModule.enableCompileCache();
register();
const { main } = await import('../cmd/cli.js');
await main(process.argv, process.env);
