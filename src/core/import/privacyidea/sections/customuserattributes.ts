// Custom user attributes (table customuserattribute: user_id, resolver, realm_id, Key, Value, Type),
// stored by user id, resolver name and realm name as authsrv keeps them.
import type { Context } from '../../../context.ts';
import { storedRealmName } from '../../../realm/index.ts';
import { type AttributeOwner, setUserAttributeAsServer } from '../../../user/index.ts';
import { type Planned, piText, serviceSection } from './common.ts';

interface PiAttribute {
  owner: AttributeOwner;
  key: string;
  value: string;
  type: string;
}

/** `key of userid in resolver (realm)`: how the summary names one attribute. */
function objectName(a: PiAttribute): string {
  const realm = a.owner.realm ? ` (realm ${a.owner.realm})` : '';
  return `${a.key} of ${a.owner.userid} in ${a.owner.resolver}${realm}`;
}

async function existingAttributes(
  ctx: Context,
  planned: ReadonlyArray<{ object: string; item: PiAttribute }>,
): Promise<string[]> {
  const found: string[] = [];
  for (const { object, item: a } of planned) {
    const row = await ctx.store.db
      .selectFrom('user_attribute')
      .select('id')
      .where('userid', '=', a.owner.userid)
      .where('resolver', '=', a.owner.resolver)
      .where('realm', '=', a.owner.realm)
      .where('key', '=', a.key)
      .executeTakeFirst();
    if (row) found.push(object);
  }
  return found;
}

export const customUserAttributeSection = serviceSection<PiAttribute>({
  name: 'customuserattributes',
  async read({ source }) {
    const realms = new Map(
      (await source.db.selectFrom('realm').select(['id', 'name']).execute()).map((r) => [
        Number(r.id),
        storedRealmName(piText(r.name)),
      ]),
    );
    const rows = await source.db.selectFrom('customuserattribute').selectAll().orderBy('id').execute();
    return rows.map((r): Planned<PiAttribute> => {
      const a: PiAttribute = {
        owner: {
          userid: piText(r.user_id),
          resolver: piText(r.resolver),
          realm: r.realm_id === null ? '' : (realms.get(Number(r.realm_id)) ?? ''),
        },
        key: piText(r.Key),
        value: piText(r.Value),
        type: piText(r.Type),
      };
      return { object: objectName(a), item: a };
    });
  },
  existing: existingAttributes,
  write: (ctx, a) => setUserAttributeAsServer(ctx, a.owner, a.key, a.value, a.type),
});
