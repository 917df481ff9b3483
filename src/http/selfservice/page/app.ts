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

/** One API call; resolves with the envelope, rejects with the server's own message. */
async function api(method: string, path: string, params: Record<string, string> = {}): Promise<Envelope> {
  const query = new URLSearchParams(params).toString();
  const get = method === 'GET';
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (jwt) headers.Authorization = jwt;
  if (!get) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  const res = await fetch(`..${path}${get && query ? `?${query}` : ''}`, {
    method,
    headers,
    ...(get ? {} : { body: query }),
    credentials: 'omit',
  });
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
    $('whoami').textContent = `Logged in as ${value.username}@${value.realm}.`;
    show(true);
    await Promise.all([renderEnrollButtons(), renderTokens()]);
    $('tokens-title').focus();
  } catch (e) {
    error.textContent = message(e);
  }
}

function logOut(): void {
  jwt = '';
  rights = new Set();
  $('enroll-view').hidden = true;
  $('pin-form').hidden = true;
  show(false);
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
    act('setpin', 'Set PIN', async () => openPinForm(t.serial));
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

function openPinForm(serial: string): void {
  $('pin-serial').textContent = serial;
  $('pin-error').textContent = '';
  $('pin-form').hidden = false;
  $('pin').focus();
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
$('logout').addEventListener('click', logOut);
