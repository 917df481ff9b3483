// The self-service page (docs/selfservice.md): a realm user logs in through /auth and manages their
// own tokens through the REST API. The page holds no rules: which buttons show comes from the
// rights of the /auth answer and GET /auth/rights, and every request is checked by the server anyway.
// The JWT lives in this module's memory only: a reload logs out, and no cookie carries it.

interface Envelope {
  result: { status: boolean; value?: unknown; error?: { message: string } };
  detail?: Record<string, unknown>;
}

interface TokenRow {
  serial: string;
  tokentype: string;
  description: string;
  active: boolean;
  rollout_state?: string;
  info?: Record<string, string>;
}

let jwt = '';
let rights = new Set<string>();

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

/**
 * One API call; resolves with the envelope, rejects with the server's own message. `anonymous`
 * sends no JWT: /validate/check is the token's own test, not an act of the logged-in session.
 */
async function api(
  method: string,
  path: string,
  params: Record<string, string> = {},
  anonymous = false,
): Promise<Envelope> {
  const query = new URLSearchParams(params).toString();
  const get = method === 'GET';
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (jwt && !anonymous) headers.Authorization = jwt;
  if (!get) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  const res = await fetch(`..${path}${get && query ? `?${query}` : ''}`, {
    method,
    headers,
    ...(get ? {} : { body: query }),
    credentials: 'omit',
  });
  if (res.status === 401 && headers.Authorization) {
    logOut('Your session has ended. Please log in again.');
    throw new Error('Your session has ended.');
  }
  const body = (await res.json().catch(() => null)) as Envelope | null;
  if (!body?.result?.status) throw new Error(body?.result?.error?.message ?? `HTTP ${res.status}`);
  return body;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

function show(loggedIn: boolean): void {
  $('login-view').hidden = loggedIn;
  $('tokens-view').hidden = !loggedIn;
  $('logout').hidden = !loggedIn;
}

async function logIn(ev: SubmitEvent): Promise<void> {
  ev.preventDefault();
  const error = $('login-error');
  error.textContent = '';
  const username = $<HTMLInputElement>('username').value.trim();
  const password = $<HTMLInputElement>('password').value;
  try {
    const value = (await api('POST', '/auth', { username, password })).result.value as {
      token: string;
      rights: string[];
      username: string;
      realm: string;
    };
    if (!value?.token) throw new Error('This login needs a further step the page does not offer.');
    jwt = value.token;
    rights = new Set(value.rights);
    $<HTMLInputElement>('password').value = '';
    $('whoami').textContent = `Logged in as ${value.username}@${value.realm}.${sessionEnd(value.token)}`;
    status('');
    show(true);
    await Promise.all([renderEnrollButtons(), renderTokens()]);
    $('tokens-title').focus();
  } catch (e) {
    error.textContent = message(e);
  }
}

/** " The session ends at 14:05." from the JWT's `exp`, or nothing where it has none. */
function sessionEnd(token: string): string {
  try {
    const payload = (token.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/');
    const exp = (JSON.parse(atob(payload)) as { exp?: number }).exp;
    if (typeof exp !== 'number') return '';
    const at = new Date(exp * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    return ` The session ends at ${at}.`;
  } catch {
    return '';
  }
}

/** Forgets the JWT and shows the login form, with `why` as its message (a session that ended). */
function logOut(why = ''): void {
  jwt = '';
  rights = new Set();
  for (const id of ['enroll-view', 'pin-form', 'resync-form', 'test-form']) $(id).hidden = true;
  status('');
  show(false);
  $('login-error').textContent = why;
  $('username').focus();
}

function button(label: string, onClick: () => void, secondary = false): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  if (secondary) b.className = 'secondary';
  b.addEventListener('click', onClick);
  return b;
}

function cell(row: HTMLTableRowElement, label: string, content: string | Node): void {
  const td = row.insertCell();
  td.dataset.label = label;
  td.append(content);
}

async function renderTokens(): Promise<void> {
  const tbody = $<HTMLTableElement>('tokens').tBodies[0] as HTMLTableSectionElement;
  const value = (await api('GET', '/token/')).result.value as { tokens: TokenRow[] };
  tbody.replaceChildren();
  for (const t of value.tokens) {
    const row = tbody.insertRow();
    row.dataset.serial = t.serial;
    cell(row, 'Serial', t.serial);
    cell(row, 'Type', t.tokentype);
    cell(row, 'Description', t.description);
    cell(row, 'Active', t.rollout_state === 'verify' ? 'waiting for first code' : t.active ? 'yes' : 'no');
    cell(row, 'Last use', t.info?.last_auth ?? '—');
    const actions = document.createElement('span');
    const act = (right: string, label: string, run: () => Promise<void>) => {
      if (rights.has(right)) actions.append(button(`${label} ${t.serial}`, () => void perform(run), true));
    };
    if (t.active) act('disable', 'Disable', () => tokenAction('disable', t.serial));
    else act('enable', 'Enable', () => tokenAction('enable', t.serial));
    act('setpin', 'Set PIN', async () => openPinForm(t.serial, t.tokentype));
    act('resync', 'Resync', async () => openResyncForm(t.serial));
    // /validate/check needs no right; a token still waiting for its first code cannot log in yet.
    if (t.active && t.rollout_state !== 'verify')
      actions.append(button(`Test ${t.serial}`, () => openTestForm(t.serial), true));
    act('delete', 'Delete', async () => {
      if (!confirm(`Delete token ${t.serial}?`)) return;
      await api('DELETE', `/token/${encodeURIComponent(t.serial)}`);
    });
    cell(row, 'Actions', actions);
  }
  if (value.tokens.length === 0) cell(tbody.insertRow(), 'Tokens', 'You have no tokens yet.');
}

async function tokenAction(action: string, serial: string): Promise<void> {
  await api('POST', `/token/${action}`, { serial });
  status(`Token ${serial}: ${action}d.`);
}

function status(text: string): void {
  $('status').textContent = text;
}

/** Runs an action and refreshes the table; a failure goes to the status line. */
async function perform(run: () => Promise<void>): Promise<void> {
  try {
    await run();
    await renderTokens();
  } catch (e) {
    status(message(e));
  }
}

async function renderEnrollButtons(): Promise<void> {
  const box = $('enroll-buttons');
  box.replaceChildren();
  const types = (await api('GET', '/auth/rights')).result.value as Record<string, string>;
  for (const type of ['totp', 'hotp'])
    if (type in types) box.append(button(`Enroll ${type.toUpperCase()}`, () => void enroll(type)));
}

let enrolling = { serial: '', type: '' };

async function enroll(type: string): Promise<void> {
  try {
    const detail = (await api('POST', '/token/init', { type, genkey: '1' })).detail as {
      serial: string;
      rollout_state?: string;
      googleurl: { value: string; img: string };
    };
    enrolling = { serial: detail.serial, type };
    const url = new URL(detail.googleurl.value);
    $<HTMLImageElement>('qr').src = detail.googleurl.img;
    $('secret').textContent = url.searchParams.get('secret') ?? '';
    const verify = detail.rollout_state === 'verify';
    $('verify-form').hidden = !verify;
    $('verify-error').textContent = '';
    $('enroll-done').hidden = verify;
    $('enroll-view').hidden = false;
    if (verify) $('verify-code').focus();
    else $('enroll-title').focus();
    await renderTokens();
  } catch (e) {
    status(message(e));
  }
}

async function verify(ev: SubmitEvent): Promise<void> {
  ev.preventDefault();
  const input = $<HTMLInputElement>('verify-code');
  try {
    await api('POST', '/token/init', { ...enrolling, verify: input.value.trim() });
    input.value = '';
    $('verify-form').hidden = true;
    $('enroll-done').hidden = false;
    await renderTokens();
    status(`Token ${enrolling.serial} is ready.`);
  } catch (e) {
    $('verify-error').textContent = message(e);
  }
}

/** The value of a valued right (`otp_pin_minlength=4` → "4"), per token type first. */
function rightValue(name: string, type: string): string | undefined {
  for (const key of [`${type}_${name}`, name])
    for (const r of rights) if (r.startsWith(`${key}=`)) return r.slice(key.length + 1);
  return undefined;
}

const CONTENTS: Readonly<Record<string, string>> = {
  c: 'letters',
  n: 'digits',
  s: 'special characters',
  o: 'other characters',
};

/** The PIN policies in words, shown before the user types (the server checks them again). */
function pinRules(type: string): string {
  const min = rightValue('otp_pin_minlength', type);
  const max = rightValue('otp_pin_maxlength', type);
  const contents = rightValue('otp_pin_contents', type);
  const rules: string[] = [];
  if (min) rules.push(`at least ${min} characters`);
  if (max) rules.push(`at most ${max} characters`);
  if (contents) {
    const kinds = [...contents.replace(/^[+-]/, '')].map((c) => CONTENTS[c] ?? c);
    rules.push(
      `${contents.startsWith('-') ? 'none of' : contents.startsWith('+') ? 'one of' : 'all of'}: ${kinds.join(', ')}`,
    );
  }
  return rules.length ? `The PIN needs ${rules.join('; ')}.` : '';
}

function openPinForm(serial: string, type: string): void {
  $('pin-serial').textContent = serial;
  $('pin-rules').textContent = pinRules(type);
  $('pin-error').textContent = '';
  $('pin-form').hidden = false;
  $('pin').focus();
}

function openResyncForm(serial: string): void {
  $('resync-serial').textContent = serial;
  $('resync-error').textContent = '';
  $('resync-form').hidden = false;
  $('otp1').focus();
}

async function resync(ev: SubmitEvent): Promise<void> {
  ev.preventDefault();
  const serial = $('resync-serial').textContent ?? '';
  const [otp1, otp2] = ['otp1', 'otp2'].map((id) => $<HTMLInputElement>(id));
  try {
    const value = (await api('POST', '/token/resync', { serial, otp1: otp1!.value, otp2: otp2!.value }))
      .result.value;
    if (value !== true) throw new Error('The codes did not match the token.');
    otp1!.value = '';
    otp2!.value = '';
    $('resync-form').hidden = true;
    status(`Token ${serial}: resynchronized.`);
  } catch (e) {
    $('resync-error').textContent = message(e);
  }
}

function openTestForm(serial: string): void {
  $('test-serial').textContent = serial;
  $('test-result').textContent = '';
  $('test-form').hidden = false;
  $('test-pass').focus();
}

/** Tests a token the way a login would: /validate/check with its serial, which uses the code up. */
async function testToken(ev: SubmitEvent): Promise<void> {
  ev.preventDefault();
  const input = $<HTMLInputElement>('test-pass');
  const serial = $('test-serial').textContent ?? '';
  const result = $('test-result');
  result.textContent = '';
  try {
    const answer = await api('POST', '/validate/check', { serial, pass: input.value }, true);
    result.textContent =
      answer.result.value === true
        ? 'Accepted'
        : `Not accepted: ${String(answer.detail?.message ?? 'the code did not match')}`;
  } catch (e) {
    result.textContent = `Not accepted: ${message(e)}`;
  }
  input.value = '';
  await renderTokens().catch((e: unknown) => status(message(e)));
}

async function setPin(ev: SubmitEvent): Promise<void> {
  ev.preventDefault();
  const input = $<HTMLInputElement>('pin');
  const serial = $('pin-serial').textContent ?? '';
  try {
    await api('POST', '/token/setpin', { serial, otppin: input.value });
    input.value = '';
    $('pin-form').hidden = true;
    status(`Token ${serial}: PIN set.`);
  } catch (e) {
    $('pin-error').textContent = message(e);
  }
}

for (const id of ['tokens-title', 'enroll-title']) $(id).tabIndex = -1;
$('login-form').addEventListener('submit', (ev) => void logIn(ev));
$('verify-form').addEventListener('submit', (ev) => void verify(ev));
$('pin-form').addEventListener('submit', (ev) => void setPin(ev));
$('pin-cancel').addEventListener('click', () => {
  $('pin-form').hidden = true;
});
$('resync-form').addEventListener('submit', (ev) => void resync(ev));
$('resync-cancel').addEventListener('click', () => {
  $('resync-form').hidden = true;
});
$('test-form').addEventListener('submit', (ev) => void testToken(ev));
$('test-cancel').addEventListener('click', () => {
  $('test-form').hidden = true;
});
$('logout').addEventListener('click', () => logOut());
