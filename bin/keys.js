#!/usr/bin/env node
// Makes, lists and revokes API keys (docs/security.md, API keys), on SQLite or PostgreSQL like bin/serve.js.
// Usage: node bin/keys.js create --name NAME --scopes read,write [--expires-at TIME] | list | revoke ID
import { entry, requireSupportedNode, silenceSqliteWarning } from './node-check.js';

requireSupportedNode();
silenceSqliteWarning();
const { main } = await import(entry('keys'));
process.exitCode = await main(process.argv.slice(2), process.env);
