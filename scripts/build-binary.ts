// Builds dist/authsrv: a Node.js single executable application (SEA) holding the bundled CLI,
// better-sqlite3's native addon and the bundled script of the hash worker threads. Run with Node 24
// (`npm run build:binary`): the executable is a copy of the very node binary running this script,
// since the blob and its code cache must match it.
//
// Usage: node scripts/build-binary.ts [entry.ts]   (entry defaults to src/cli/main.ts)

import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { HASH_WORKER_ASSET } from '../src/crypto/hash-pool.ts';
import { SQLITE_ADDON_ASSET } from '../src/store/sqlite-binding.ts';

const require = createRequire(import.meta.url);
const root = resolve(import.meta.dirname, '..');
const entry = resolve(root, process.argv[2] ?? 'src/cli/main.ts');
const work = join(root, 'dist', 'sea');
const bundle = join(work, 'authsrv.cjs');
const hashWorker = join(work, HASH_WORKER_ASSET);
const blob = join(work, 'authsrv.blob');
const output = join(root, 'dist', 'authsrv');

const started = performance.now();
if (Number(process.versions.node.split('.')[0]) < 24)
  throw new Error(`needs Node 24, this is ${process.version}`);
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

// 1. Bundle into one CommonJS file: a SEA's main script is CommonJS in Node 24 and cannot load
//    anything from node_modules at run time.
await build({
  entryPoints: [entry],
  outfile: bundle,
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'cjs',
  // pg loads its optional native driver only when asked (pg.native); it is not installed.
  external: ['pg-native'],
  // CJS has no import.meta: point it at the executable, like __filename in a SEA.
  define: {
    'import.meta.url': '__authsrv_import_meta_url',
    'import.meta.filename': '__filename',
    'import.meta.dirname': '__dirname',
  },
  // In a SEA the main script's `require` only loads built-in modules. better-sqlite3 loads its
  // addon with require(<path>), so give the bundle a file-system require rooted at the executable.
  banner: {
    js: [
      "require = require('node:module').createRequire(__filename);",
      "var __authsrv_import_meta_url = require('node:url').pathToFileURL(__filename).href;",
    ].join('\n'),
  },
  // Turn import() into require(): with useCodeCache, import() throws in a Node 24 SEA.
  supported: { 'dynamic-import': false },
  logLevel: 'warning',
  // Code reached at run time that uses other import.meta properties would get `undefined`.
  logOverride: { 'empty-import-meta': 'error' },
}).catch(() => process.exit(1)); // esbuild has printed the errors

// The hash workers' code (src/crypto/hash-pool.ts): a worker thread cannot start from a file of the
// executable, so it starts from this self-contained script, embedded as an asset and run with eval.
await build({
  entryPoints: [resolve(root, 'src/crypto/hash-worker.ts')],
  outfile: hashWorker,
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'cjs',
  logLevel: 'warning',
  logOverride: { 'empty-import-meta': 'error' },
}).catch(() => process.exit(1));

// 2. SEA blob with the addon and the hash worker as assets (src/store/sqlite-binding.ts writes the
//    addon out at run time).
const prebuild = join(
  dirname(require.resolve('better-sqlite3/package.json')),
  'prebuilds',
  `${process.platform}-${process.arch}.node`,
);
const seaConfig = join(work, 'sea-config.json');
writeFileSync(
  seaConfig,
  JSON.stringify(
    {
      // Relative to `work` (the cwd below), so stack traces name authsrv.cjs, not the build path.
      main: 'authsrv.cjs',
      output: 'authsrv.blob',
      disableExperimentalSEAWarning: true,
      useCodeCache: true,
      assets: { [SQLITE_ADDON_ASSET]: prebuild, [HASH_WORKER_ASSET]: hashWorker },
    },
    null,
    2,
  ),
);
execFileSync(process.execPath, ['--experimental-sea-config', seaConfig], { cwd: work, stdio: 'inherit' });

// 3. Copy this node binary and inject the blob. Remove first: overwriting a running executable fails.
rmSync(output, { force: true });
copyFileSync(process.execPath, output);
chmodSync(output, 0o755);
const { inject } = require('postject') as {
  inject: (file: string, name: string, data: Buffer, options: { sentinelFuse: string }) => Promise<void>;
};
await inject(output, 'NODE_SEA_BLOB', readFileSync(blob), {
  sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
});
chmodSync(output, 0o755);

const seconds = ((performance.now() - started) / 1000).toFixed(1);
const mb = (statSync(output).size / 1e6).toFixed(1);
console.log(`built ${output} (${mb} MB) in ${seconds} s`);
