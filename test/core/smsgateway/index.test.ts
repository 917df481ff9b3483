// sendSms, the internal API "send message M to phone P through gateway G", on every dialect: through
// a script gateway of the configured scripts directory (sms.scripts_dir) and an HTTP gateway, the
// failure reasons (a failing script, a gateway that does not answer within TIMEOUT, a refused
// connection, an unknown gateway, a malformed phone number), and the event loop serving other
// work while a send waits.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSmsGateways, saveSmsGateway, sendSms } from '../../../src/core/smsgateway/index.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { type HttpSink, startHttpSink } from '../../helpers/http-sink.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

describe.each(testDialects())('sendSms on %s', (dialect) => {
  let t: TestRuntime;
  let sink: HttpSink;
  let scriptsDir: string;

  beforeAll(async () => {
    sink = await startHttpSink();
    // The scripts directory is configuration, outside the data directory.
    scriptsDir = mkdtempSync(join(tmpdir(), 'authsrv-sms-scripts-'));
    t = await openTestRuntime(dialect, { config: { 'sms.scripts_dir': scriptsDir } });
    writeFileSync(
      join(scriptsDir, 'send.sh'),
      `#!/bin/sh\nprintf '%s|%s' "$1" "$2" > "${scriptsDir}/sent"\n`,
    );
    writeFileSync(join(scriptsDir, 'fail.sh'), '#!/bin/sh\necho "gateway down" >&2\nexit 2\n');
    chmodSync(join(scriptsDir, 'send.sh'), 0o755);
    chmodSync(join(scriptsDir, 'fail.sh'), 0o755);
  });
  afterAll(async () => {
    await sink.close();
    await t.close();
    rmSync(scriptsDir, { recursive: true, force: true });
  });

  const script = (name: string, file: string) =>
    saveSmsGateway(t.ctx, {
      name,
      module: 'script',
      option: { script: file, background: 'wait' },
      header: {},
      keepOmitted: false,
    });
  const http = (name: string, url: string, timeout = '3') =>
    saveSmsGateway(t.ctx, {
      name,
      module: 'http',
      option: {
        URL: url,
        HTTP_METHOD: 'GET',
        CHECK_SSL: 'yes',
        SEND_DATA_AS_JSON: 'no',
        TIMEOUT: timeout,
        m: '{otp}',
      },
      header: {},
      keepOmitted: false,
    });

  it('sends through a script of the scripts directory', async () => {
    await script('scripted', 'send.sh');
    expect(await sendSms(t.rt, 'scripted', '+49 151', 'Code 42')).toEqual({ success: true });
    expect(readFileSync(join(scriptsDir, 'sent'), 'utf8')).toBe('+49 151|Code 42');
    await script('failing', 'fail.sh');
    expect(await sendSms(t.rt, 'failing', '1', 'm')).toEqual({
      success: false,
      reason: 'the script fail.sh exited with status 2: gateway down',
    });
  });

  it('says why a message was not sent', async () => {
    expect(await sendSms(t.rt, 'nothere', '1', 'm')).toEqual({
      success: false,
      reason: 'there is no SMS gateway nothere',
    });
    await expect(sendSms(t.rt, 'scripted', '1; rm -rf /', 'm')).rejects.toThrow('is not a phone number');
    await http('refused', 'http://127.0.0.1:1/');
    expect(await sendSms(t.rt, 'refused', '1', 'm')).toEqual({
      success: false,
      reason: 'cannot reach http://127.0.0.1:1: ECONNREFUSED',
    });
  });

  it('serves other work while a send waits for a gateway that does not answer', async () => {
    sink.answer = { status: 200, text: '', hang: true };
    await http('hanging', `${sink.url}/x`, '2');
    let settled = false;
    const sending = sendSms(t.rt, 'hanging', '1', 'm').finally(() => {
      settled = true;
    });
    // The database and the event loop answer meanwhile; the send is still waiting.
    expect((await listSmsGateways(t.rt, 'hanging')).map((g) => g.name)).toEqual(['hanging']);
    expect(settled).toBe(false);
    expect(await sending).toEqual({ success: false, reason: `no answer from ${sink.url} within 2 s` });
    sink.answer = { status: 200, text: 'OK' };
  });
});
