// Entry point of the compiled image (node dist/cmd/main.js). `process.env` is read here and only here.
import { main } from './cli.js';

await main(process.argv, process.env);
