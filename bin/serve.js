#!/usr/bin/env node
// Starts the HTTP service on a migrated database (docs/extending.md, Migrations). It never migrates.
import { entry, requireSupportedNode, silenceSqliteWarning } from './node-check.js';
import { boundYoungGeneration } from './young-generation.js';

requireSupportedNode();
boundYoungGeneration();
silenceSqliteWarning();
const { main } = await import(entry('serve'));
await main(process.env);
