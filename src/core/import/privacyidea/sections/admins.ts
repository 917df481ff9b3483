// Local administrators (table admin: username, password, email). privacyIDEA hashed PI_PEPPER +
// password (passlib argon2id): the hash is kept with the pepper sealed beside it, and authsrv
// re-hashes the password with its own scheme at the first login (src/core/auth/admins.ts).
import { addImportedAdmin, type ImportedAdmin, importedAdminRefusal } from '../../../auth/index.ts';
import { byCodeUnits, namesIn, type Planned, piText, serviceSection } from './common.ts';

export const adminSection = serviceSection<ImportedAdmin>({
  name: 'admins',
  async read({ source, pepper }) {
    const rows = await source.db.selectFrom('admin').select(['username', 'password', 'email']).execute();
    rows.sort((a, b) => byCodeUnits(piText(a.username), piText(b.username)));
    const planned: Planned<ImportedAdmin>[] = [];
    for (const r of rows) {
      const admin = { name: piText(r.username), hash: piText(r.password), pepper };
      const refusal = importedAdminRefusal(admin);
      planned.push(refusal ? { object: admin.name, refusal } : { object: admin.name, item: admin });
      // authsrv has no place for it: reported, the administrator is imported.
      if (piText(r.email) !== '')
        planned.push({
          object: `${admin.name} (email)`,
          refusal: `authsrv keeps no e-mail address of a local administrator: ${piText(r.email)} is not imported`,
        });
    }
    return planned;
  },
  existing: namesIn('admin', 'name'),
  write: (ctx, admin) => addImportedAdmin(ctx, admin),
});
