// The rest of /system: random key material and the security module status.
import { HsmError, ParameterError } from '../../errors.ts';
import type { Context, Runtime } from '../context.ts';

const MAX_RANDOM_BYTES = 1024;

export function randomKey(
  rt: Runtime,
  lenParam: string | undefined,
  encodeParam: string | undefined,
): string {
  const len =
    lenParam === undefined || lenParam === '' ? 20 : /^\d+$/.test(lenParam) ? Number(lenParam) : NaN;
  if (!Number.isInteger(len) || len < 1 || len > MAX_RANDOM_BYTES) {
    throw new ParameterError(`len must be a whole number of bytes from 1 to ${MAX_RANDOM_BYTES}`);
  }
  const encode = encodeParam || 'hex';
  if (encode !== 'hex' && encode !== 'b64')
    throw new ParameterError(`encode must be hex or b64, got '${encode}'`);
  return rt.random.bytes(len).toString(encode === 'hex' ? 'hex' : 'base64');
}

export function hsmStatus(ctx: Context): { is_ready: boolean } {
  return { is_ready: ctx.hsm.isReady() };
}

/** The security module as an operator sees it: whether its key is password protected, and usable. */
export function hsmState(ctx: Context): { protected: boolean; ready: boolean } {
  return { protected: ctx.hsm.isProtected, ready: ctx.hsm.isReady() };
}

/** Protects the encryption key file with a password (or changes it); servers then start locked. */
export function hsmProtect(ctx: Context, password: string): void {
  ctx.hsm.protect(password);
}

export function hsmUnlock(ctx: Context, password: string | undefined): { is_ready: boolean } {
  if (ctx.hsm.isReady()) throw new HsmError('HSM already set up.');
  if (!password) throw ParameterError.missing('password');
  ctx.hsm.unlock(password);
  return hsmStatus(ctx);
}
