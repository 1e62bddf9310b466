// Plain JavaScript that any Node can parse: it runs before the TypeScript sources load.

/** The oldest Node these scripts run on: node:sqlite and type stripping, both without flags. */
export const MINIMUM_NODE = '22.18.0';

// Type stripping is on by default from 22.18 on the 22 line and from 23.6 on the 23 line.
function isSupported(major, minor) {
  if (major === 22) return minor >= 18;
  if (major === 23) return minor >= 6;
  return major > 23;
}

/** The message to print for a Node that cannot run this service (`v20.1.0` or `20.1.0`), or null. */
export function unsupportedNodeMessage(version) {
  const [major = 0, minor = 0] = String(version).replace(/^v/, '').split('.').map(Number);
  if (isSupported(major, minor)) return null;
  return (
    `This service needs Node.js ${MINIMUM_NODE} or newer (on the 23 line, 23.6.0 or newer) ` +
    'for node:sqlite and TypeScript type stripping; ' +
    `this is Node.js ${String(version).replace(/^v/, '')}.\n` +
    'After `npm install`, which brings the pinned Node 24, run it through npm so that Node is used:\n' +
    '`npm start`, `npm run migrate`, `npm run serve`, or `npx node bin/serve.js`.\n' +
    'Or install Node 24 LTS from https://nodejs.org.\n'
  );
}

/** Exits with a plain message when this Node lacks node:sqlite or type stripping. */
export function requireSupportedNode() {
  const message = unsupportedNodeMessage(process.versions.node);
  if (message === null) return;
  process.stderr.write(message);
  process.exit(1);
}

/** Drops Node 22's "SQLite is an experimental feature" warning: depending on node:sqlite is the design. */
export function silenceSqliteWarning() {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    const text = typeof warning === 'string' ? warning : warning?.message;
    if (typeof text === 'string' && text.startsWith('SQLite is an experimental feature')) return;
    return emitWarning.call(process, warning, ...rest);
  };
}

/** The entry module: TypeScript sources in a checkout, compiled output inside node_modules. */
export function entry(name) {
  const compiled = import.meta.url.includes('/node_modules/');
  return new URL(compiled ? `../dist/cli/${name}.js` : `../src/cli/${name}.ts`, import.meta.url).href;
}
