#!/usr/bin/env node
// Starts the HTTP service on a migrated database (docs/extending.md, Migrations). It never migrates.
import { entry, requireSupportedNode, silenceSqliteWarning } from './node-check.js';
import { holdStopSignals } from './stop-signals.js';
import { applyGcFlags } from './gc-flags.js';

requireSupportedNode();
applyGcFlags();
// After the restart above (which would lose a held signal), before the sources load.
const stopSignals = holdStopSignals();
silenceSqliteWarning();
const { main } = await import(entry('serve'));
await main(process.env, stopSignals);
