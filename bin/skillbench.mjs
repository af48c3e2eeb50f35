#!/usr/bin/env node
// The `skillbench` command: runs the CLI as built by scripts/build-cli.mjs
// (dist/cli), rebuilding it first when a source changed since the last build.
import { loadMain } from '../scripts/cliBundle.mjs';

const main = await loadMain();
process.exitCode = await main(process.argv.slice(2));
