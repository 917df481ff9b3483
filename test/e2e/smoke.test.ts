import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../helpers/dialects.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe.each(testDialects())('smoke on %s', (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ dialect });
  });
  afterAll(async () => s?.close());

  it('logs in and reads the system config', async () => {
    const token = await s.adminToken();
    const r = await s.call('GET', '/system/', {}, token);
    expect(r.status).toBe(200);
    expect(r.json.result.value.PrependPin).toBe('True');
  });
});
