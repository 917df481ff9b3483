// Checks a signed JSON answer without the project's own signing code: python3 parses the body,
// removes `signature` and re-serialises with json.dumps(sort_keys=True); the openssl CLI then
// verifies the RSA-PSS signature (SHA-256, MGF1-SHA-256, maximum salt length) over those bytes.
// The tools run asynchronously (helpers/run.ts): a test server lives in the same process and must
// keep serving (and keep its keep-alive timers in step with the client's) while they run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface WireCheck {
  /** The body equals json.dumps(json.loads(body), sort_keys=True): the wire format is Python's. */
  wireIsPythonDump: boolean;
  /** openssl accepted the signature over json.dumps(body without signature, sort_keys=True). */
  verified: boolean;
  /** What openssl said. */
  opensslOutput: string;
}

const SPLIT = `
import json, sys
text = sys.stdin.read()
obj = json.loads(text)
sig = obj.pop("signature")
full = json.loads(text)
assert sig.startswith("rsa_sha256_pss:"), sig
sys.stdout.write(json.dumps({
    "wire_ok": text == json.dumps(full, sort_keys=True),
    "data": json.dumps(obj, sort_keys=True),
    "sig": sig[len("rsa_sha256_pss:"):],
}))
`;

import { run } from './run.ts';

/** Runs the openssl CLI verification of `signatureHex` over `data` with the PEM public key file. */
export async function opensslVerify(
  data: Buffer,
  signatureHex: string,
  publicKeyFile: string,
): Promise<{ verified: boolean; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'authsrv-sig-'));
  try {
    writeFileSync(join(dir, 'data.txt'), data);
    writeFileSync(join(dir, 'sig.bin'), Buffer.from(signatureHex, 'hex'));
    const r = await run('openssl', [
      'dgst',
      '-sha256',
      '-sigopt',
      'rsa_padding_mode:pss',
      // "max" makes openssl insist on the maximum salt length, which is what privacyIDEA uses.
      '-sigopt',
      'rsa_pss_saltlen:max',
      '-sigopt',
      'rsa_mgf1_md:sha256',
      '-verify',
      publicKeyFile,
      '-signature',
      join(dir, 'sig.bin'),
      join(dir, 'data.txt'),
    ]);
    const output = `${r.stdout}${r.stderr}`.trim();
    return { verified: r.status === 0 && output.includes('Verified OK'), output };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function checkSignedBody(body: string, publicKeyFile: string): Promise<WireCheck> {
  const r = await run('python3', ['-c', SPLIT], { input: body });
  if (r.status !== 0) throw new Error(`python3 could not split the signed body: ${r.stderr}`);
  const split = JSON.parse(r.stdout) as { wire_ok: boolean; data: string; sig: string };
  const v = await opensslVerify(Buffer.from(split.data, 'utf8'), split.sig, publicKeyFile);
  return { wireIsPythonDump: split.wire_ok, verified: v.verified, opensslOutput: v.output };
}
