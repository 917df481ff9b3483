// The privacyIDEA 3.11 installation snapshot of test/fixtures/privacyidea-3.11 (README.md and
// STORAGE.md there): its files, its manifest, and the options of an import of it into a test
// runtime, for the tests of `authsrv import privacyidea` (src/core/import).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PrivacyideaImportOptions } from '../../src/core/import/index.ts';

export const PI_FIXTURE = resolve(import.meta.dirname, '../fixtures/privacyidea-3.11');

/** The fixture's manifest.json: every object of the installation with what an import must keep. */
// biome-ignore lint/suspicious/noExplicitAny: the manifest is data, read field by field in the tests
export const piManifest: any = JSON.parse(readFileSync(join(PI_FIXTURE, 'manifest.json'), 'utf8'));

/**
 * The options of a test runtime that allows the fixture's files (files.allowed_dirs): the
 * resolvers section refuses a user store file outside the allowed directories.
 */
export const FIXTURE_FILES = { config: { 'files.allowed_dirs': PI_FIXTURE } };

/** The options of an import of the fixture, its file paths mapped to the fixture's files. */
export function fixtureImport(overrides: Partial<PrivacyideaImportOptions> = {}): PrivacyideaImportOptions {
  const remap = piManifest.fixture.path_remapping as Record<string, string>;
  return {
    db: join(PI_FIXTURE, 'pi.sqlite'),
    baseDir: PI_FIXTURE,
    encfile: join(PI_FIXTURE, 'encfile'),
    pepperFile: join(PI_FIXTURE, 'pepper.txt'),
    mapPaths: Object.entries(remap).map(([from, to]) => [from, join(PI_FIXTURE, to)] as const),
    withAudit: false,
    dryRun: false,
    ...overrides,
  };
}
