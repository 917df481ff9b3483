// Concurrent enrolments and token changes never fail with a database deadlock: the database's
// deadlock and serialisation errors are retried (MariaDB's InnoDB picks a victim among
// concurrent transactions that insert tokeninfo rows; PostgreSQL may report serialisation
// failures), so twenty simultaneous /token/init calls all succeed on every dialect.
import { describe, expect, it } from 'vitest';
import { testDialects } from '../helpers/dialects.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';

describe.each(testDialects())('concurrent enrolment on %s', (dialect) => {
  let s: TestServer;
  let admin: string;
  useTokenServer(dialect, { realms: { realm1: [pwUser('alice', 1001)] }, reset: ['tokens'] }, (t) => {
    ({ s, admin } = t);
  });

  it('enrols twenty tokens at once for one user, each answered with the envelope', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        s.call(
          'POST',
          '/token/init',
          {
            type: 'hotp',
            genkey: '1',
            user: 'alice',
            realm: 'realm1',
            serial: `CONC${i}`,
            description: `d${i}`,
          },
          admin,
        ),
      ),
    );
    for (const a of answers) expect(a.json.result?.status, a.text).toBe(true);
    const rows = await s.rt.store.db
      .selectFrom('token')
      .select('serial')
      .where('serial', 'like', 'CONC%')
      .execute();
    expect(rows).toHaveLength(20);
  });
});
