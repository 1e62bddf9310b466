#!/usr/bin/env node
// Applies pending migrations from sql/ (docs/extending.md, Migrations). Usage: node bin/migrate.js [--status]
import { entry, requireSupportedNode, silenceSqliteWarning } from './node-check.js';

requireSupportedNode();
silenceSqliteWarning();
const { main } = await import(entry('migrate'));
process.exitCode = await main(process.argv.slice(2), process.env);
