// User resolvers (tables resolver, resolverconfig): passwd, LDAP, SQL and SCIM resolvers become
// authsrv resolvers of the same type through the resolver service, which checks and seals them.
// Settings keep privacyIDEA's names (authsrv's resolvers take them, aliases folded: `fileName`
// and `Filename` are one setting); a key authsrv does not know is reported and left out; file
// paths pass --map-path; password values are decrypted with the key file and sealed again.
import { ParameterError } from '../../../../errors.ts';
import { resolverKinds } from '../../../../resolvers/index.ts';
import type { Context } from '../../../context.ts';
import { settingsToSave } from '../../../plugin-settings/index.ts';
import { listResolvers, saveResolver } from '../../../resolver/index.ts';
import type { ImportInput, ImportSection, Skipped } from '../section.ts';
import { byCodeUnits, keyValuesByOwner, type PiKeyValue, piText } from './common.ts';
import { openKeyValue, takenNames } from './pi-values.ts';

type ResolverKind = ReturnType<typeof resolverKinds>[number];

interface PlannedResolver {
  name: string;
  params: Record<string, string>;
}

export const resolverSection: ImportSection = {
  name: 'resolvers',
  async plan(input, ctx) {
    const rows = await input.source.db
      .selectFrom('resolver')
      .select(['id', 'name', 'rtype'])
      .orderBy('id')
      .execute();
    rows.sort((a, b) => byCodeUnits(piText(a.name), piText(b.name)));
    const config = await keyValuesByOwner(input.source.db, 'resolverconfig', 'resolver_id', { type: 'Type' });
    const skipped: Skipped[] = [];
    const planned: PlannedResolver[] = [];
    for (const row of rows) {
      const name = piText(row.name);
      const kind = resolverKinds().find((k) => k.type === piText(row.rtype));
      if (!kind) {
        skipped.push({ object: name, reason: `authsrv has no resolver type ${piText(row.rtype)}` });
        continue;
      }
      const params = resolverParams(input, name, kind, config.get(Number(row.id)) ?? [], skipped);
      checkSettings(ctx, name, params);
      planned.push({ name, params });
    }
    const names = planned.map((p) => p.name);
    const existing = Object.keys(await listResolvers(ctx));
    return {
      objects: names,
      skipped,
      conflicts: takenNames(names, existing),
      async write(inner, progress) {
        for (const [i, p] of planned.entries()) {
          await saveResolver(inner, p.name, p.params);
          progress(i + 1);
        }
      },
    };
  },
};

/** The canonical setting name of a privacyIDEA key, aliases folded; undefined when authsrv has none. */
function settingName(kind: ResolverKind, key: string): string | undefined {
  for (const [name, spec] of Object.entries(kind.settings))
    if (name === key || spec.aliases?.includes(key)) return name;
  return undefined;
}

/** The parameters of saveResolver for one privacyIDEA resolver; what cannot be carried is reported. */
function resolverParams(
  input: ImportInput,
  name: string,
  kind: ResolverKind,
  rows: readonly PiKeyValue[],
  skipped: Skipped[],
): Record<string, string> {
  const params: Record<string, string> = { type: kind.type };
  for (const row of rows) {
    const open = openKeyValue(input.keys, row);
    const setting = settingName(kind, row.key);
    if (!setting) {
      skipped.push({
        object: `${name}.${row.key}`,
        reason: `authsrv's ${kind.type} has no setting ${row.key}`,
      });
      continue;
    }
    if (open.value === undefined)
      throw new ParameterError(
        `The ${row.key} of resolver ${name} does not decrypt with this key file: nothing was imported`,
      );
    const value = open.secret ? open.value : input.mapPath(open.value);
    const before = params[setting];
    if (before !== undefined && before !== value) {
      skipped.push({
        object: `${name}.${row.key}`,
        reason: `another key of the same setting ${setting} gives '${before}'`,
      });
      continue;
    }
    params[setting] = value;
    if (open.secret) params[`type.${setting}`] = 'password';
  }
  return params;
}

/** The resolver service's own checks before anything is written (a bad file path, a missing setting). */
function checkSettings(ctx: Context, name: string, params: Record<string, string>): void {
  try {
    settingsToSave(ctx, {
      label: 'Resolver',
      name,
      existing: undefined,
      params,
      notSettings: new Set(['type']),
      kindOf: (type) => resolverKinds().find((k) => k.type === type) as ResolverKind,
    });
  } catch (e) {
    throw new ParameterError(`The resolver ${name} cannot be imported: ${(e as Error).message}`);
  }
}
