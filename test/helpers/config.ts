// Removing system configuration entries between tests the way the service does (deleteConfig), so
// that the change counter moves and no node keeps a configuration snapshot that is out of date.
import { localOperator, type Runtime, withCaller } from '../../src/core/context.ts';
import { deleteConfig } from '../../src/core/system/config.ts';

/** Deletes the entries named (every entry without `names`; a RegExp matches names); absent ones are skipped. */
export async function removeConfig(rt: Runtime, names?: readonly string[] | RegExp): Promise<void> {
  const ctx = withCaller(rt, localOperator());
  const rows = await rt.store.db.selectFrom('config').select('name').execute();
  for (const { name } of rows) {
    const wanted = names === undefined || (names instanceof RegExp ? names.test(name) : names.includes(name));
    if (wanted) await deleteConfig(ctx, name);
  }
}
