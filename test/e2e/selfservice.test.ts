// The self-service page (docs/selfservice.md) in a real browser: Debian's chromium driven by
// playwright-core. A user logs in, enrolls a TOTP token with the two-step verification, sets a PIN
// and authenticates with it through /validate/check; tests the token on the page (accepted, then a
// wrong code not accepted); a wrong password shows /auth's message; a user
// whose policies grant no enrolment sees no enrol button; the enrolment works from the keyboard
// alone; axe-core finds no serious or critical accessibility violation. Screenshots of each step
// go to test-artifacts/selfservice/ (not committed). SQLite only: the page is dialect-independent.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSETS_MODULE, selfserviceModule } from '../../scripts/build-selfservice.ts';
import { SELFSERVICE_CSP } from '../../src/http/selfservice/serve.ts';
import { hotp } from '../helpers/otp.ts';
import { passwdRealm, pwUser } from '../helpers/realms.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { ok } from '../helpers/user-stores.ts';

const ARTIFACTS = join(import.meta.dirname, '../../test-artifacts/selfservice');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const START = Date.parse('2026-03-01T12:00:00Z');

/** RFC 4648 base32 to hex, written here so the page's secret is read independently of src/tokens. */
function base32ToHex(text: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = [...text.replace(/=+$/, '').toUpperCase()]
    .map((c) => alphabet.indexOf(c).toString(2).padStart(5, '0'))
    .join('');
  const bytes = bits.match(/.{8}/g) ?? [];
  return Buffer.from(bytes.map((b) => Number.parseInt(b, 2))).toString('hex');
}

describe('self-service page', () => {
  let s: TestServer;
  let off: TestServer;
  let browser: Browser;
  let now = START;
  const totp = (secret: string) => hotp(base32ToHex(secret), Math.floor(now / 1000 / 30));

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    s = await startTestServer({ config: { 'http.selfservice': 'true' }, clock: () => new Date(now) });
    off = await startTestServer();
    const admin = await s.adminToken();
    await passwdRealm(s, admin, 'realm1', [pwUser('alice', 1001)]);
    await passwdRealm(s, admin, 'realm2', [pwUser('bob', 1002)]);
    const policy = async (name: string, params: Record<string, string>) =>
      ok(await s.call('POST', `/policy/${name}`, params, admin));
    await policy('users1', {
      scope: 'user',
      realm: 'realm1',
      action: 'enrollTOTP, enrollHOTP, disable, enable, delete, setpin, otp_pin_minlength=4',
    });
    await policy('users2', { scope: 'user', realm: 'realm2', action: 'disable, resync' });
    await policy('verify', { scope: 'enrollment', action: 'verify_enrollment=totp' });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  });

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await off?.close();
  });

  /** A new browser window on the page; `bypassCSP` only where axe-core's script is injected. */
  async function openPage(
    bypassCSP = false,
  ): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
    const context = await browser.newContext({ bypassCSP, viewport: { width: 1000, height: 800 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      // A refused login is an HTTP 401 the browser logs; any other error (a CSP refusal) counts.
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${s.url}/selfservice/`);
    return { context, page, errors };
  }

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

  async function seriousViolations(page: Page): Promise<string[]> {
    await page.addScriptTag({ content: AXE_SOURCE });
    const violations = await page.evaluate(async () => {
      // biome-ignore lint/suspicious/noExplicitAny: axe-core's global, injected above
      const result = await (globalThis as any).axe.run();
      return result.violations as { id: string; impact: string }[];
    });
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
  }

  async function logIn(page: Page, username: string, password: string): Promise<void> {
    await page.getByLabel('User (user@realm)').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
  }

  it('serves the page from the server with its own strict CSP; off, /selfservice/ is 404', async () => {
    expect(readFileSync(ASSETS_MODULE, 'utf8')).toBe(await selfserviceModule());
    const page = await fetch(`${s.url}/selfservice/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(SELFSERVICE_CSP);
    expect(SELFSERVICE_CSP).not.toContain('unsafe');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const js = await fetch(`${s.url}/selfservice/app.js`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await fetch(`${s.url}/selfservice`, { redirect: 'manual' })).headers.get('location')).toBe(
      '/selfservice/',
    );
    // The API keeps the JSON policy.
    const api = await fetch(`${s.url}/healthz`);
    expect(api.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    for (const path of ['/selfservice/', '/selfservice/app.js'])
      expect((await fetch(`${off.url}${path}`)).status).toBe(404);
  });

  it('wrong password, log in, enroll TOTP with the first code, set a PIN, /validate/check accepts', async () => {
    const { context, page, errors } = await openPage(true);
    await shot(page, '01-login');
    await logIn(page, 'alice@realm1', 'wrong');
    const error = page.locator('#login-error');
    const refused = await s.call('POST', '/auth', { username: 'alice@realm1', password: 'wrong' });
    await expect.poll(() => error.textContent()).toBe(refused.json.result.error.message);
    await shot(page, '02-wrong-password');
    expect(await seriousViolations(page)).toEqual([]);

    await logIn(page, 'alice@realm1', 'alicepw');
    await page.getByRole('heading', { name: 'My tokens' }).waitFor();
    await page.getByRole('button', { name: 'Enroll TOTP' }).waitFor();
    expect(await page.locator('#whoami').textContent()).toMatch(
      /^Logged in as alice@realm1\. The session ends at \d\d:\d\d( [AP]M)?\.$/,
    );
    await shot(page, '03-my-tokens');
    await page.getByRole('button', { name: 'Enroll TOTP' }).click();
    const secret = page.locator('#secret');
    await expect.poll(() => secret.textContent()).toMatch(/^[A-Z2-7]{32}$/);
    expect(await page.locator('#qr').getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    await shot(page, '04-enroll-qr');
    const row = page.locator('#tokens tbody tr');
    expect(await row.locator('td[data-label=Active]').textContent()).toBe('waiting for first code');
    const serial = (await row.getAttribute('data-serial')) as string;

    await page.getByLabel('First code shown by the app').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => page.locator('#verify-error').textContent()).toMatch(/ERR905/);
    await page.getByLabel('First code shown by the app').fill(totp((await secret.textContent()) as string));
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => page.locator('#status').textContent()).toBe(`Token ${serial} is ready.`);
    // The table is drawn again before the status line tells the news.
    expect(await row.locator('td[data-label=Active]').textContent()).toBe('yes');
    await shot(page, '05-enrolled');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: `Set PIN ${serial}` }).click();
    // The PIN policy is shown before typing; a PIN against it gets the server's message beside the field.
    expect(await page.locator('#pin-rules').textContent()).toBe('The PIN needs at least 4 characters.');
    await page.getByLabel(`New PIN for ${serial}`).fill('12');
    await page.getByRole('button', { name: 'Set PIN', exact: true }).click();
    await expect
      .poll(() => page.locator('#pin-error').textContent())
      .toBe('ERR303: The minimum OTP PIN length is 4');
    await page.getByLabel(`New PIN for ${serial}`).fill('4711');
    await page.getByRole('button', { name: 'Set PIN', exact: true }).click();
    await expect.poll(() => page.locator('#status').textContent()).toBe(`Token ${serial}: PIN set.`);
    await shot(page, '06-pin-set');

    // "Test": /validate/check with the serial; PIN+code is accepted, a wrong code is not.
    now += 30_000;
    await page.getByRole('button', { name: `Test ${serial}` }).click();
    expect(await page.locator(':focus').getAttribute('id')).toBe('test-pass');
    expect(await page.locator('#test-hint').textContent()).toMatch(/used up like a login/);
    const result = page.locator('#test-result');
    await page
      .getByLabel('PIN followed by the code')
      .fill(`4711${totp((await secret.textContent()) as string)}`);
    await page.keyboard.press('Enter');
    await expect.poll(() => result.textContent()).toBe('Accepted');
    await shot(page, '07-test-accepted');
    await page.getByLabel('PIN followed by the code').fill('4711000000');
    await page.getByRole('button', { name: 'Check', exact: true }).click();
    await expect.poll(() => result.textContent()).toBe('Not accepted: wrong otp value');
    await shot(page, '08-test-not-accepted');
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator('#test-cancel').click();
    expect(await page.locator('#test-form').isHidden()).toBe(true);

    now += 30_000;
    const code = totp((await secret.textContent()) as string);
    const check = (pass: string) =>
      s.call('POST', '/validate/check', { user: 'alice', realm: 'realm1', pass });
    expect((await check(code)).json.result.value).toBe(false);
    expect((await check(`4711${code}`)).json.result.value).toBe(true);

    await page.getByRole('button', { name: `Disable ${serial}` }).click();
    await expect.poll(() => row.locator('td[data-label=Active]').textContent()).toBe('no');
    await page.getByRole('button', { name: `Enable ${serial}` }).waitFor();
    page.on('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: `Delete ${serial}` }).click();
    await expect.poll(() => row.first().textContent()).toBe('You have no tokens yet.');

    // HOTP, which verify_enrollment does not name: ready at once, its first value logs in.
    await page.getByRole('button', { name: 'Enroll HOTP' }).click();
    await page.locator('#enroll-done').waitFor();
    expect(await page.locator('#verify-form').isHidden()).toBe(true);
    expect(await row.locator('td[data-label=Type]').textContent()).toBe('hotp');
    const hotpKey = base32ToHex((await secret.textContent()) as string);
    expect((await check(hotp(hotpKey, 0))).json.result.value).toBe(true);
    await page.getByRole('button', { name: `Delete ${await row.getAttribute('data-serial')}` }).click();
    await expect.poll(() => row.first().textContent()).toBe('You have no tokens yet.');

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByLabel('User (user@realm)').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a user without the enrol right sees no enrol button; resync; an ended session returns to the login', async () => {
    const admin = await s.adminToken();
    const key = '3132333435363738393031323334353637383930';
    ok(
      await s.call(
        'POST',
        '/token/init',
        { type: 'hotp', otpkey: key, serial: 'BOB1', user: 'bob', realm: 'realm2' },
        admin,
      ),
    );
    const { context, page, errors } = await openPage();
    await logIn(page, 'bob@realm2', 'bobpw');
    await page.locator('#tokens tbody tr[data-serial=BOB1]').waitFor();
    expect(await page.locator('#enroll-buttons button').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Disable BOB1' }).count()).toBe(1);
    for (const name of ['Delete BOB1', 'Set PIN BOB1'])
      expect(await page.getByRole('button', { name }).count()).toBe(0);
    await shot(page, '09-no-enrol-right');

    // Resync: two consecutive values far ahead of the counter, then the next one logs in.
    await page.getByRole('button', { name: 'Resync BOB1' }).click();
    await page.getByLabel('Code 1').fill(hotp(key, 20));
    await page.getByLabel('Code 2 (the next one)').fill(hotp(key, 21));
    await page.getByRole('button', { name: 'Resync', exact: true }).click();
    await expect.poll(() => page.locator('#status').textContent()).toBe('Token BOB1: resynchronized.');
    const check = await s.call('POST', '/validate/check', {
      user: 'bob',
      realm: 'realm2',
      pass: hotp(key, 22),
    });
    expect(check.json.result.value).toBe(true);

    // When the JWT has expired, the next action returns to the login form with a message.
    now += 24 * 3600_000;
    await page.getByRole('button', { name: 'Disable BOB1' }).click();
    await expect
      .poll(() => page.locator('#login-error').textContent())
      .toBe('Your session has ended. Please log in again.');
    expect(await page.locator('#tokens-view').isHidden()).toBe(true);
    await shot(page, '10-session-ended');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('walks through the enrolment from the keyboard alone, under the page CSP and on a phone screen', async () => {
    const { context, page, errors } = await openPage();
    await page.setViewportSize({ width: 375, height: 740 });
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').getAttribute('id')).toBe('username');
    await page.keyboard.type('alice@realm1');
    await page.keyboard.press('Tab');
    await page.keyboard.type('alicepw');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Enroll TOTP' }).waitFor();
    // The focus sits on the heading; Tab goes through the token buttons to the enrol button.
    expect(await page.locator(':focus').getAttribute('id')).toBe('tokens-title');
    const passed: string[] = [];
    for (let i = 0; i < 10 && passed.at(-1) !== 'Enroll TOTP'; i++) {
      await page.keyboard.press('Tab');
      passed.push((await page.locator(':focus').textContent()) ?? '');
    }
    expect(passed.at(-1)).toBe('Enroll TOTP');
    await page.keyboard.press('Enter');
    const secret = page.locator('#secret');
    await expect.poll(() => secret.textContent()).toMatch(/^[A-Z2-7]{32}$/);
    expect(await page.locator(':focus').getAttribute('id')).toBe('verify-code');
    await shot(page, '11-keyboard-enroll');
    await page.keyboard.type(totp((await secret.textContent()) as string));
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#status').textContent()).toMatch(/^Token \S+ is ready\.$/);
    await shot(page, '12-keyboard-enrolled');
    // Focus is visible: the focused button draws an outline.
    await page.keyboard.press('Shift+Tab');
    const outline = await page
      .locator(':focus')
      // biome-ignore lint/suspicious/noExplicitAny: the browser's window, not typed on Node
      .evaluate((el) => (globalThis as any).getComputedStyle(el).outlineStyle);
    expect(outline).toBe('solid');
    expect(errors).toEqual([]);
    await context.close();
  });
});
