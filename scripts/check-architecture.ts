// The layering rules of docs/architecture.md, checked on every import in src/ (part of `npm run
// lint`; Biome's noImportCycles checks the cycles):
// - a folder with an index.ts is closed: from outside it, only its index.ts is imported;
// - data flows down: core never imports a front end, plug-ins and infrastructure never import core,
//   and front ends reach the plug-ins, the policy engine and the store only through core;
// - inside src/core, a resource imports only resources of the layers below its own (CORE_LAYERS),
//   the shared files of src/core itself (context.ts, limits.ts …) import no resource, and
//   runtime.ts (CORE_OPENERS), which opens a Runtime for the front ends, is imported by none;
// - tests mirror the sources: test/<path>/<name>.test.ts tests src/<path>/<name>.ts (or the folder
//   <name>/, or with `<module>-<aspect>` one aspect of <module>.ts); test/scripts/ mirrors scripts/.
//   test/e2e/ (the server over HTTP) and test/helpers/ are the exceptions.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** What core hides from the front ends: they call a service, never what it is built on. */
const BEHIND_CORE = [
  'src/store',
  'src/tokens',
  'src/resolvers',
  'src/machine-resolvers',
  'src/applications',
  'src/gateways',
  'src/policy',
  'src/event-handlers',
  'src/task-modules',
  'src/ca-types',
];

/** Every folder of src/ but the one named: for the folders at the bottom, which import none. */
const ALL_FOLDERS = [
  'src/cli',
  'src/http',
  'src/core',
  'src/tokens',
  'src/resolvers',
  'src/machine-resolvers',
  'src/applications',
  'src/gateways',
  'src/policy',
  'src/task-modules',
  'src/crypto',
  'src/store',
  'src/config',
  'src/files',
  'src/radius-packet',
  'src/event-handlers',
  'src/ca-types',
  'src/radius-server',
];
const allBut = (folder: string) => ALL_FOLDERS.filter((f) => f !== folder);

/** Folders (relative to the repository) whose files must not import the listed folders. */
export const FORBIDDEN: Readonly<Record<string, readonly string[]>> = {
  'src/core': ['src/cli', 'src/http', 'src/radius-server'],
  'src/http': ['src/cli', 'src/radius-server', ...BEHIND_CORE],
  // authsrv's own RADIUS server: a front end like src/http, beside it.
  'src/radius-server': ['src/cli', 'src/http', ...BEHIND_CORE],
  'src/cli': BEHIND_CORE,
  'src/tokens': ['src/core', 'src/cli', 'src/http', 'src/gateways', 'src/ca-types'],
  'src/resolvers': ['src/core', 'src/cli', 'src/http', 'src/machine-resolvers'],
  // Machine resolvers build on the user stores' settings and LDAP connections, never the reverse.
  'src/machine-resolvers': ['src/core', 'src/cli', 'src/http'],
  // Machine applications get what they need about a token from core, never from the token plug-ins.
  'src/applications': ['src/core', 'src/cli', 'src/http', 'src/tokens', 'src/store'],
  // Gateways (SMS providers; SMTP and RADIUS clients) get their settings from core, never the store;
  // token types reach them only through the outbox core lends them, never the reverse.
  'src/gateways': ['src/core', 'src/cli', 'src/http', 'src/store', 'src/tokens'],
  'src/policy': ['src/core', 'src/cli', 'src/http'],
  // Event handler modules get what a run needs from core (options, tags, operations), never the store.
  'src/event-handlers': ['src/core', 'src/cli', 'src/http', 'src/store', 'src/tokens'],
  // Task modules do their work through core's resources (audit, token) and the store; core's
  // periodictask resource finds them in their registry.
  'src/task-modules': ['src/cli', 'src/http'],
  // CA types read their files through the rule core lends them and never reach the store.
  'src/ca-types': ['src/core', 'src/cli', 'src/http', 'src/store', 'src/tokens'],
  'src/crypto': ['src/core', 'src/cli', 'src/http'],
  'src/store': ['src/core', 'src/cli', 'src/http'],
  'src/config': ['src/core', 'src/cli', 'src/http'],
  // The rule for files that settings name: every layer uses it, it uses none.
  'src/files': allBut('src/files'),
  // RADIUS packets: the RADIUS client of the gateways and a RADIUS server front end share them.
  'src/radius-packet': allBut('src/radius-packet'),
};

/**
 * The resources of src/core by layer, lowest first (the drawing in docs/architecture.md): a
 * resource imports only those of lower layers, never one of its own layer or above.
 */
export const CORE_LAYERS: readonly (readonly string[])[] = [
  ['system', 'policy', 'client', 'metrics', 'monitoring'],
  ['plugin-settings', 'smtpserver', 'gpg'],
  ['directory'],
  ['access', 'resolver', 'throttle', 'machineresolver', 'smsgateway', 'caconnector'],
  ['realm', 'user', 'audit', 'token'],
  ['serviceid', 'radiusserver', 'radiusclient'],
  ['machine'],
  ['validate'],
  ['auth'],
  ['event'],
  ['periodictask'],
  ['documentation', 'status', 'setup'],
  // Imports of other servers' installations write every kind of object through its service.
  ['import'],
];

/**
 * The shared files of src/core above every resource: they open a Runtime for the front ends
 * (and upgrade its database), so they may import any resource and no resource imports them.
 */
export const CORE_OPENERS: readonly string[] = ['runtime.ts'];

export interface Violation {
  file: string;
  line: number;
  target: string;
  message: string;
}

const IMPORT =
  /(?:^|\n)[ \t]*(?:import|export)\b[^;'"]*?\bfrom\s*'([^']+)'|\bimport\(\s*'([^']+)'\s*\)|(?:^|\n)[ \t]*import\s*'([^']+)'/g;

/** The relative module specifiers of a file, with their line numbers. */
export function importsOf(text: string): { specifier: string; line: number }[] {
  const out: { specifier: string; line: number }[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const specifier = m[1] ?? m[2] ?? m[3];
    if (specifier === undefined || !specifier.startsWith('.')) continue;
    const at = (m.index ?? 0) + m[0].indexOf(specifier);
    out.push({ specifier, line: text.slice(0, at).split('\n').length });
  }
  return out;
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  // Sorted, so that reports come in the same order on every file system.
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...tsFiles(path));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

const within = (path: string, folder: string) => path === folder || path.startsWith(`${folder}${sep}`);

/**
 * What is wrong with an import between two resources of src/core (paths relative to it), if
 * anything: a resource of no layer, or an import of the same layer or above. The shared files of
 * src/core are below every resource.
 */
export function coreLayerProblem(from: string, target: string): string | undefined {
  const [fromResource, ...fromRest] = from.split(sep);
  const [targetResource, ...targetRest] = target.split(sep);
  if (targetRest.length === 0) {
    const opener = CORE_OPENERS.includes(targetResource as string) && fromRest.length > 0;
    return opener
      ? `src/core/${fromResource}/ must not import src/core/${target}, which only front ends use`
      : undefined;
  }
  if (fromResource === targetResource || CORE_OPENERS.includes(from)) return undefined;
  const layer = (resource: string) => CORE_LAYERS.findIndex((names) => names.includes(resource));
  const targetLayer = layer(targetResource as string);
  if (targetLayer < 0)
    return `src/core/${targetResource}/ has no layer in CORE_LAYERS (scripts/check-architecture.ts)`;
  if (fromRest.length === 0)
    return `the shared files of src/core import no resource (src/core/${targetResource}/)`;
  const fromLayer = layer(fromResource as string);
  if (fromLayer < 0)
    return `src/core/${fromResource}/ has no layer in CORE_LAYERS (scripts/check-architecture.ts)`;
  if (targetLayer >= fromLayer)
    return `src/core/${fromResource}/ must not import src/core/${targetResource}/, which is not in a layer below it (docs/architecture.md)`;
  return undefined;
}

/** The outermost folder with an index.ts that holds `target` but not `from`. */
function closedFolder(
  root: string,
  from: string,
  target: string,
  faces: ReadonlySet<string>,
): string | undefined {
  let closed: string | undefined;
  for (let dir = dirname(target); within(dir, root) && dir !== root; dir = dirname(dir)) {
    if (within(from, dir)) break;
    if (faces.has(dir)) closed = dir;
  }
  return closed;
}

/** Every violation of the rules in the src/ folder of a repository. */
export function checkArchitecture(repo: string): Violation[] {
  const root = resolve(repo, 'src');
  const files = tsFiles(root);
  const faces = new Set(files.filter((f) => f.endsWith(`${sep}index.ts`)).map((f) => dirname(f)));
  const violations: Violation[] = [];
  for (const file of files) {
    const rel = (p: string) => relative(repo, p).split(sep).join('/');
    const forbidden = Object.entries(FORBIDDEN).find(([folder]) => within(rel(file), folder))?.[1] ?? [];
    for (const { specifier, line } of importsOf(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), specifier);
      const report = (message: string) =>
        violations.push({ file: rel(file), line, target: rel(target), message });
      if (!within(target, root)) continue;
      const banned = forbidden.find((folder) => within(rel(target), folder));
      if (banned) report(`${rel(dirname(file))} must not import ${banned} (layers: docs/architecture.md)`);
      const core = join(root, 'core');
      if (within(file, core) && within(target, core)) {
        const problem = coreLayerProblem(relative(core, file), relative(core, target));
        if (problem) report(problem);
      }
      const closed = closedFolder(root, dirname(file), target, faces);
      if (closed && target !== join(closed, 'index.ts'))
        report(`import ${rel(closed)}/index.ts: the rest of ${rel(closed)}/ is private to it`);
      else if (!closed && statSync(target, { throwIfNoEntry: false }) === undefined) report('no such file');
    }
  }
  return violations;
}

/** Folders of test/ that test no one module. */
const TEST_EXCEPTIONS = ['e2e', 'helpers'];

/** The test files (relative to the repository) that name no module they could be the tests of. */
export function misplacedTests(repo: string): string[] {
  const testRoot = resolve(repo, 'test');
  const out: string[] = [];
  for (const file of tsFiles(testRoot)) {
    const rel = relative(testRoot, file).split(sep);
    if (TEST_EXCEPTIONS.includes(rel[0] as string) || !file.endsWith('.test.ts')) continue;
    const [base, path] = rel[0] === 'scripts' ? ['scripts', rel.slice(1)] : ['src', rel];
    const dir = join(repo, base, ...path.slice(0, -1));
    const name = (path.at(-1) as string).replace(/\.test\.ts$/, '');
    const module = name.split('-')[0] as string;
    const candidates = [`${name}.ts`, name, `${module}.ts`].map((p) => join(dir, p));
    const aspect = name !== module;
    if (!candidates.some((c, i) => (i < 2 || aspect) && existsSync(c)))
      out.push(relative(repo, file).split(sep).join('/'));
  }
  return out;
}

if (import.meta.main) {
  const repo = resolve(import.meta.dirname, '..');
  const violations = checkArchitecture(repo);
  for (const v of violations) console.error(`${v.file}:${v.line}: imports ${v.target}: ${v.message}`);
  const tests = misplacedTests(repo);
  for (const t of tests) console.error(`${t}: names no module of src/ (or scripts/) it could test`);
  if (violations.length + tests.length > 0) {
    console.error(
      `${violations.length} import(s) break the layering rules, ${tests.length} test file(s) the layout.`,
    );
    process.exit(1);
  }
  console.log('architecture: every import keeps to the layers and folder faces; tests mirror src/');
}
