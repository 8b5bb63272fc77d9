#!/usr/bin/env node
// Runs the TypeScript CLI directly (tsx) in a checkout; the container image runs the compiled dist/ instead.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../runtime/cli.ts');
await main(process.argv, process.env);
