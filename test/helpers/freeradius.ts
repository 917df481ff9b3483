// FreeRADIUS from Debian as the upstream RADIUS server of a test: its own configuration directory
// (a minimal radiusd.conf, one client, a users file), on a free UDP port of 127.0.0.1, in the
// foreground, stopped by stop(). The users:
//  - alice / RADIUS_ALICE_PASSWORD: Access-Accept with a Reply-Message; carol likewise;
//  - chal / RADIUS_CHAL_FIRST: Access-Challenge with State and a Reply-Message; the answer
//    RADIUS_CHAL_SECOND with that State: Access-Accept;
//  - multi: RADIUS_MULTI_STEPS, two Access-Challenges in a row, then Access-Accept;
//  - anyone else, or a wrong password: Access-Reject.
// The client must send Message-Authenticator (require_message_authenticator = yes).
import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

export const FREERADIUS = '/usr/sbin/freeradius';
export const RADIUS_SECRET = 'radius-test-secret';
export const RADIUS_ALICE_PASSWORD = 'alice-otp-123456';
/** carol's password: a PIN and the HOTP value of RFC 4226's key at counter 1 (passthru_assign). */
export const RADIUS_CAROL_PASSWORD = 'carolpin287082';
export const RADIUS_CHAL_FIRST = 'first-1234';
export const RADIUS_CHAL_SECOND = '987654';
export const RADIUS_CHAL_MESSAGE = 'Enter the second code';
/** multi: three steps, two challenges (States MULTI_STATE_1, MULTI_STATE_2), then Access-Accept. */
export const RADIUS_MULTI_STEPS = ['step-one', 'step-two', 'step-three'] as const;
const MULTI_STATE_1 = '6d756c74692d31';
const MULTI_STATE_2 = '6d756c74692d32';
/** The State FreeRADIUS sends with its challenge (hex). */
export const RADIUS_CHAL_STATE = '73746174652d31';

export interface FreeRadius {
  port: number;
  /** Everything FreeRADIUS printed (for a failing test's message). */
  output(): string;
  stop(): Promise<void>;
}

/** A UDP port of 127.0.0.1 free at the moment (the fixture binds it right after). */
export async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', resolve));
  const { port } = s.address();
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Where a proxying FreeRADIUS sends every Access-Request (its home server, as proxy.conf names it). */
export interface HomeServer {
  port: number;
  secret: string;
}

/**
 * The proxy configuration (what proxy.conf holds): every request goes to the home server on
 * 127.0.0.1, with Message-Authenticator added (FreeRADIUS before 3.2.5 adds it only when asked).
 */
function proxyConf(home: HomeServer): { top: string; authorize: string; preProxy: string } {
  return {
    top: `
proxy_requests = yes
proxy server {
  default_fallback = no
}
home_server authsrv {
  type = auth
  ipaddr = 127.0.0.1
  port = ${home.port}
  secret = ${home.secret}
  response_window = 20
  zombie_period = 40
  status_check = none
}
home_server_pool authsrv_pool {
  type = fail-over
  home_server = authsrv
}
realm authsrv {
  auth_pool = authsrv_pool
  nostrip
}
`,
    authorize: `
    update control {
      Proxy-To-Realm := "authsrv"
    }`,
    preProxy: `
  pre-proxy {
    update proxy-request {
      Message-Authenticator := 0x00
    }
  }`,
  };
}

function radiusdConf(dir: string, port: number, home?: HomeServer): string {
  const proxy = home ? proxyConf(home) : { top: '', authorize: '', preProxy: '' };
  return `${proxy.top}
prefix = /usr
exec_prefix = /usr
sysconfdir = /etc
localstatedir = ${dir}
sbindir = /usr/sbin
logdir = ${dir}
raddbdir = ${dir}
radacctdir = ${dir}
name = freeradius
confdir = ${dir}
modconfdir = ${dir}
certdir = ${dir}
cadir = ${dir}
run_dir = ${dir}
db_dir = ${dir}
libdir = /usr/lib/freeradius
pidfile = ${dir}/radiusd.pid
max_request_time = 30
cleanup_delay = 5
max_requests = 1024
hostname_lookups = no
log {
  destination = stdout
  auth = yes
}
security {
  allow_core_dumps = no
  max_attributes = 200
  reject_delay = 0
  status_server = yes
}
thread pool {
  start_servers = 2
  max_servers = 4
  min_spare_servers = 1
  max_spare_servers = 3
}
client test {
  ipaddr = 127.0.0.1
  secret = ${RADIUS_SECRET}
  require_message_authenticator = yes
}
modules {
  pap {
    normalise = yes
  }
  files {
    filename = ${dir}/users
  }
}
server default {
  listen {
    type = auth
    ipaddr = 127.0.0.1
    port = ${port}
  }
  authorize {${proxy.authorize}
    files
    pap
  }${proxy.preProxy}
  authenticate {
    Auth-Type PAP {
      pap
    }
  }
  # FreeRADIUS before 3.2.5 signs its answers with Message-Authenticator only when the reply
  # holds one; authsrv requires it (BlastRADIUS), as a patched server sends it by itself.
  post-auth {
    update reply {
      Message-Authenticator := 0x00
    }
    Post-Auth-Type REJECT {
      update reply {
        Message-Authenticator := 0x00
      }
    }
    Post-Auth-Type Challenge {
      update reply {
        Message-Authenticator := 0x00
      }
    }
  }
}
`;
}

const USERS = `alice Cleartext-Password := "${RADIUS_ALICE_PASSWORD}"
      Reply-Message := "Hello alice"

carol Cleartext-Password := "${RADIUS_CAROL_PASSWORD}"

chal  State == 0x${RADIUS_CHAL_STATE}, User-Password == "${RADIUS_CHAL_SECOND}", Auth-Type := Accept
      Reply-Message := "Welcome"

multi State == 0x${MULTI_STATE_2}, User-Password == "${RADIUS_MULTI_STEPS[2]}", Auth-Type := Accept

multi State == 0x${MULTI_STATE_1}, User-Password == "${RADIUS_MULTI_STEPS[1]}", Response-Packet-Type := Access-Challenge, Auth-Type := Accept
      State := 0x${MULTI_STATE_2}, Reply-Message := "Step 3"

multi User-Password == "${RADIUS_MULTI_STEPS[0]}", Response-Packet-Type := Access-Challenge, Auth-Type := Accept
      State := 0x${MULTI_STATE_1}, Reply-Message := "Step 2"

chal  User-Password == "${RADIUS_CHAL_FIRST}", Response-Packet-Type := Access-Challenge, Auth-Type := Accept
      State := 0x${RADIUS_CHAL_STATE}, Reply-Message := "${RADIUS_CHAL_MESSAGE}"
`;

/**
 * Starts FreeRADIUS and waits until it says it is ready; with `home`, as a proxy that sends every
 * Access-Request to that home server (authsrv's own RADIUS server) and its answer back.
 */
export async function startFreeRadius(home?: HomeServer): Promise<FreeRadius> {
  const dir = await mkdtemp(join(tmpdir(), 'authsrv-freeradius-'));
  const port = await freeUdpPort();
  await writeFile(join(dir, 'radiusd.conf'), radiusdConf(dir, port, home));
  await writeFile(join(dir, 'users'), USERS);
  let out = '';
  const child: ChildProcess = spawn(FREERADIUS, ['-f', '-l', 'stdout', '-d', dir, '-xx'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`FreeRADIUS did not start:\n${out}`)), 20_000);
    const check = () => {
      if (out.includes('Ready to process requests')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`FreeRADIUS exited (${code}):\n${out}`));
    });
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  return { port, output: () => out, stop };
}

/**
 * Starts FreeRADIUS before the tests of the enclosing file or describe block and stops it after
 * them; the object returned is that instance once the hook ran (its port, output and stop).
 */
export function useFreeRadius(): FreeRadius {
  const running = {} as FreeRadius;
  beforeAll(async () => {
    Object.assign(running, await startFreeRadius());
  });
  afterAll(async () => {
    await running.stop?.();
  });
  return running;
}
