import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CORE_LAYERS,
  checkArchitecture,
  coreLayerProblem,
  importsOf,
  misplacedTests,
} from '../../scripts/check-architecture.ts';

const dirs: string[] = [];

/** A repository with the given files (path → text). */
function repo(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'authsrv-arch-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('importsOf', () => {
  it('finds static, type-only, re-export, side-effect and dynamic imports with their lines', () => {
    const text = [
      "import { a } from './a.ts';",
      "import type { B } from '../b.ts';",
      'import {',
      '  c,',
      "} from './c.ts';",
      "export { d } from './d.ts';",
      "import './e.ts';",
      "const f = await import('./f.ts');",
      "import pino from 'pino';",
    ].join('\n');
    expect(importsOf(text)).toEqual([
      { specifier: './a.ts', line: 1 },
      { specifier: '../b.ts', line: 2 },
      { specifier: './c.ts', line: 5 },
      { specifier: './d.ts', line: 6 },
      { specifier: './e.ts', line: 7 },
      { specifier: './f.ts', line: 8 },
    ]);
  });
});

describe('checkArchitecture', () => {
  const token = {
    'src/core/token/index.ts': "export { store } from './store.ts';\n",
    'src/core/token/store.ts': 'export const store = 1;\n',
    'src/core/token/import/index.ts': "export { pskc } from './pskc.ts';\n",
    'src/core/token/import/pskc.ts': "import { store } from '../store.ts';\nexport const pskc = store;\n",
    'src/core/context.ts': 'export const ctx = 1;\n',
  };

  it('accepts imports through a folder index, inside a folder, and of open folders', () => {
    const dir = repo({
      ...token,
      'src/core/validate/check.ts':
        "import { store } from '../token/index.ts';\nimport { ctx } from '../context.ts';\nexport const x = store + ctx;\n",
      'src/core/token/lifecycle.ts': "import { pskc } from './import/index.ts';\nexport const y = pskc;\n",
      'src/http/route.ts': "import { ctx } from '../core/context.ts';\nexport const z = ctx;\n",
    });
    expect(checkArchitecture(dir)).toEqual([]);
  });

  it("reports an import of a folder's private file from outside it", () => {
    const dir = repo({
      ...token,
      'src/core/validate/check.ts': "import { store } from '../token/store.ts';\nexport const x = store;\n",
      'src/core/validate/deep.ts':
        "import { pskc } from '../token/import/pskc.ts';\nexport const y = pskc;\n",
    });
    expect(checkArchitecture(dir)).toEqual([
      {
        file: 'src/core/validate/check.ts',
        line: 1,
        target: 'src/core/token/store.ts',
        message: 'import src/core/token/index.ts: the rest of src/core/token/ is private to it',
      },
      {
        file: 'src/core/validate/deep.ts',
        line: 1,
        target: 'src/core/token/import/pskc.ts',
        message: 'import src/core/token/index.ts: the rest of src/core/token/ is private to it',
      },
    ]);
  });

  it('reports imports against the direction of the layers', () => {
    const dir = repo({
      'src/http/app.ts': 'export const app = 1;\n',
      'src/core/access/access.ts': "import { app } from '../../http/app.ts';\nexport const a = app;\n",
      'src/tokens/hotp.ts': "\nimport { ctx } from '../core/context.ts';\nexport const h = ctx;\n",
      'src/core/context.ts': 'export const ctx = 1;\n',
    });
    expect(checkArchitecture(dir).map((v) => [v.file, v.line, v.message])).toEqual([
      [
        'src/core/access/access.ts',
        1,
        'src/core/access must not import src/http (layers: docs/architecture.md)',
      ],
      ['src/tokens/hotp.ts', 2, 'src/tokens must not import src/core (layers: docs/architecture.md)'],
    ]);
  });

  it('reports imports between core resources that go sideways or up the layers', () => {
    const dir = repo({
      ...token,
      'src/core/system/index.ts': "import { store } from '../token/index.ts';\nexport const s = store;\n",
      'src/core/audit/index.ts': "import { store } from '../token/index.ts';\nexport const a = store;\n",
      'src/core/runtime.ts': "import { store } from './token/index.ts';\nexport const r = store;\n",
      'src/core/limits.ts': "import { store } from './token/index.ts';\nexport const l = store;\n",
      'src/core/token/open.ts': "import { r } from '../runtime.ts';\nexport const o = r;\n",
      'src/core/shiny/index.ts': "import { ctx } from '../context.ts';\nexport const n = ctx;\n",
      'src/core/validate/index.ts': "import { n } from '../shiny/index.ts';\nexport const v = n;\n",
    });
    expect(checkArchitecture(dir).map((v) => [v.file, v.message])).toEqual([
      [
        'src/core/audit/index.ts',
        'src/core/audit/ must not import src/core/token/, which is not in a layer below it (docs/architecture.md)',
      ],
      ['src/core/limits.ts', 'the shared files of src/core import no resource (src/core/token/)'],
      [
        'src/core/system/index.ts',
        'src/core/system/ must not import src/core/token/, which is not in a layer below it (docs/architecture.md)',
      ],
      [
        'src/core/token/open.ts',
        'src/core/token/ must not import src/core/runtime.ts, which only front ends use',
      ],
      [
        'src/core/validate/index.ts',
        'src/core/shiny/ has no layer in CORE_LAYERS (scripts/check-architecture.ts)',
      ],
    ]);
  });

  it('knows every resource folder of src/core exactly once', () => {
    const names = CORE_LAYERS.flat();
    expect(new Set(names).size).toBe(names.length);
    const folders = readdirSync(resolve(import.meta.dirname, '../../src/core'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect([...names].sort()).toEqual(folders.sort());
    expect(coreLayerProblem('validate/check.ts', 'token/index.ts')).toBeUndefined();
  });

  it('lets the front ends import core, the configuration and crypto, but not what core is built on', () => {
    const dir = repo({
      ...token,
      'src/config/index.ts': 'export const config = 1;\n',
      'src/crypto/index.ts': 'export const sign = 1;\n',
      'src/store/index.ts': 'export const migrate = 1;\n',
      'src/policy/index.ts': 'export const isScope = 1;\n',
      'src/tokens/index.ts': 'export const hotp = 1;\n',
      'src/resolvers/index.ts': 'export const ldap = 1;\n',
      'src/errors.ts': 'export const ERR = 1;\n',
      'src/http/envelope.ts': [
        "import { store } from '../core/token/index.ts';",
        "import { config } from '../config/index.ts';",
        "import { sign } from '../crypto/index.ts';",
        "import { ERR } from '../errors.ts';",
        "import { isScope } from '../policy/index.ts';",
        'export const e = store + config + sign + ERR + isScope;',
      ].join('\n'),
      'src/cli/commands/db.ts': [
        "import { ctx } from '../../core/context.ts';",
        "import { migrate } from '../../store/index.ts';",
        "import { hotp } from '../../tokens/index.ts';",
        "import { ldap } from '../../resolvers/index.ts';",
        'export const d = ctx + migrate + hotp + ldap;',
      ].join('\n'),
    });
    expect(checkArchitecture(dir).map((v) => [v.file, v.line, v.message])).toEqual([
      [
        'src/cli/commands/db.ts',
        2,
        'src/cli/commands must not import src/store (layers: docs/architecture.md)',
      ],
      [
        'src/cli/commands/db.ts',
        3,
        'src/cli/commands must not import src/tokens (layers: docs/architecture.md)',
      ],
      [
        'src/cli/commands/db.ts',
        4,
        'src/cli/commands must not import src/resolvers (layers: docs/architecture.md)',
      ],
      ['src/http/envelope.ts', 5, 'src/http must not import src/policy (layers: docs/architecture.md)'],
    ]);
  });

  it('lets every layer import src/files, which imports no other folder of src/', () => {
    const dir = repo({
      'src/files/index.ts': "import { ok } from '../config/index.ts';\nexport const files = ok;\n",
      'src/config/index.ts': 'export const ok = 1;\n',
      'src/resolvers/passwd.ts': "import { files } from '../files/index.ts';\nexport const p = files;\n",
      'src/core/runtime.ts': "import { files } from '../files/index.ts';\nexport const r = files;\n",
      'src/http/server.ts': "import { files } from '../files/index.ts';\nexport const s = files;\n",
    });
    expect(checkArchitecture(dir).map((v) => [v.file, v.line, v.message])).toEqual([
      ['src/files/index.ts', 1, 'src/files must not import src/config (layers: docs/architecture.md)'],
    ]);
  });

  it('reports a specifier that names no file', () => {
    const dir = repo({ 'src/a.ts': "import { b } from './b.ts';\nexport const a = b;\n" });
    expect(checkArchitecture(dir)).toEqual([
      { file: 'src/a.ts', line: 1, target: 'src/b.ts', message: 'no such file' },
    ]);
  });

  it('passes on this repository', () => {
    expect(checkArchitecture(resolve(import.meta.dirname, '../..'))).toEqual([]);
  });
});

describe('misplacedTests', () => {
  it('accepts tests named after a module, a folder, an aspect of a module, or a script', () => {
    const dir = repo({
      'src/core/token/store.ts': '',
      'src/core/audit/index.ts': '',
      'src/cli/commands/token.ts': '',
      'scripts/bench/otp.ts': '',
      'test/core/token/store.test.ts': '',
      'test/core/audit/index.test.ts': '',
      'test/core/audit.test.ts': '',
      'test/cli/commands/token-getserial.test.ts': '',
      'test/core/token/store-load.test.ts': '',
      'test/scripts/bench/otp.test.ts': '',
      'test/e2e/anything.test.ts': '',
      'test/helpers/server.ts': '',
    });
    expect(misplacedTests(dir)).toEqual([]);
  });

  it('reports a test that names no module', () => {
    const dir = repo({
      'src/core/token/store.ts': '',
      'scripts/bench/otp.ts': '',
      'test/core/token-store.test.ts': '',
      'test/core/token/stores.test.ts': '',
      'test/scripts/bench-otp.test.ts': '',
      'test/misc.test.ts': '',
    });
    expect(misplacedTests(dir).sort()).toEqual([
      'test/core/token-store.test.ts',
      'test/core/token/stores.test.ts',
      'test/misc.test.ts',
      'test/scripts/bench-otp.test.ts',
    ]);
  });
});
