// PostgreSQL on the same machine through its Unix socket (config/README.md): a database URL whose
// `host` query parameter names the socket directory opens, migrates and answers like one over TCP.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../../src/store/database.ts';
import { createTestDatabase } from '../helpers/dialects.ts';

const SOCKET_DIR = '/var/run/postgresql';
const available =
  process.env.AUTHSRV_TEST_POSTGRES_URL !== undefined && existsSync(`${SOCKET_DIR}/.s.PGSQL.5432`);

describe.runIf(available)('PostgreSQL through its Unix socket', () => {
  it('opens, migrates and answers through host=<socket directory>', async () => {
    const tdb = await createTestDatabase('postgres');
    try {
      const tcp = new URL(tdb.url);
      const viaSocket = `postgres://${tcp.username}@localhost${tcp.pathname}?host=${SOCKET_DIR}`;
      const store = await openDatabase(viaSocket);
      try {
        expect(await migrate(store)).not.toEqual([]);
        await store.db.insertInto('meta').values({ name: 'socket_test', value: 'yes' }).execute();
        const row = await store.db
          .selectFrom('meta')
          .select('value')
          .where('name', '=', 'socket_test')
          .executeTakeFirst();
        expect(row).toEqual({ value: 'yes' });
        // The connection really is the socket: PostgreSQL sees no client address.
        const peer = await store.db
          .selectNoFrom((eb) => eb.fn<string | null>('inet_client_addr', []).as('addr'))
          .executeTakeFirst();
        expect(peer?.addr).toBeNull();
      } finally {
        await store.close();
      }
    } finally {
      await tdb.drop();
    }
  });
});
