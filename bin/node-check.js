// Plain JavaScript that any Node can parse: it runs before the TypeScript sources load.
const MINIMUM = [22, 18, 0];

/** Exits with a plain message when this Node lacks node:sqlite or type stripping. */
export function requireSupportedNode() {
  const current = process.versions.node.split('.').map(Number);
  const tooOld = MINIMUM.some((part, i) => {
    const same = MINIMUM.slice(0, i).every((p, j) => p === current[j]);
    return same && (current[i] ?? 0) < part;
  });
  if (!tooOld) return;
  process.stderr.write(
    `This service needs Node.js ${MINIMUM.join('.')} or newer (for node:sqlite); this is ${process.version}.\n` +
      'Run it through npm (npm start, npm run migrate, npm run serve): `npm install` brings the pinned Node 24\n' +
      'and npm scripts put it first on the PATH. Or install Node 24 LTS from https://nodejs.org.\n',
  );
  process.exit(1);
}

/** The entry module: TypeScript sources in a checkout, compiled output inside node_modules. */
export function entry(name) {
  const compiled = import.meta.url.includes('/node_modules/');
  return new URL(compiled ? `../dist/cli/${name}.js` : `../src/cli/${name}.ts`, import.meta.url).href;
}
