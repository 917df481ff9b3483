// What the SMS providers share: the REGEXP phone-number mangling, the TIMEOUT option, and the
// parameter descriptions every provider has.
import { ParameterError } from '../../errors.ts';
import type { ProviderParameter } from './provider.ts';

/** privacyIDEA's REGEXP: `/pattern/replacement/`, applied to every match of the pattern. */
const MANGLE_FORM = /^\/(.*)\/(.*)\/$/s;

export const REGEXP_PARAMETER: ProviderParameter = {
  description:
    "Regular expression to modify the phone number to make it compatible with the provider. Enter something like '/[\\+/]//' to remove pluses and slashes.",
};

export function timeoutParameter(defaultSeconds: number): ProviderParameter {
  return {
    description: `The timeout in seconds (default ${defaultSeconds}, at most ${MAX_TIMEOUT_SECONDS}).`,
  };
}

const MAX_TIMEOUT_SECONDS = 300;

interface Mangling {
  pattern: RegExp;
  replacement: string;
}

/** The REGEXP option read, or undefined when unset; a malformed one is a ParameterError. */
function mangling(regexp: string | undefined): Mangling | undefined {
  if (regexp === undefined || regexp === '') return undefined;
  const m = MANGLE_FORM.exec(regexp);
  if (!m) throw new ParameterError(`REGEXP must look like /pattern/replacement/, e.g. /[+ ]//`);
  let pattern: RegExp;
  try {
    pattern = new RegExp(m[1]!, 'gu');
  } catch (e) {
    throw new ParameterError(`REGEXP: ${(e as Error).message}`);
  }
  // Python's \1 back-references become JavaScript's $1; a literal $ stays literal.
  const replacement = m[2]!.replace(/\$/g, '$$$$').replace(/\\(\d+)/g, '$$$1');
  return { pattern, replacement };
}

export function checkMangling(regexp: string | undefined): void {
  mangling(regexp);
}

/** The phone number as the gateway wants it (REGEXP applied). */
export function manglePhone(phone: string, regexp: string | undefined): string {
  const m = mangling(regexp);
  return m ? phone.replace(m.pattern, m.replacement) : phone;
}

/** The TIMEOUT option in milliseconds (a number of seconds, fractions allowed). */
export function timeoutMs(value: string | undefined, defaultSeconds: number): number {
  if (value === undefined || value.trim() === '') return defaultSeconds * 1000;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_TIMEOUT_SECONDS) {
    throw new ParameterError(
      `TIMEOUT must be a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS}`,
    );
  }
  return Math.round(seconds * 1000);
}

/** A whole number option within bounds (decimal, or hexadecimal with 0x as privacyIDEA's SMPP). */
export function intOption(
  key: string,
  value: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  const n = /^0x[0-9a-f]+$/i.test(text) ? Number.parseInt(text, 16) : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ParameterError(`${key} must be a whole number from ${min} to ${max}`);
  }
  return n;
}

/** Rejects after `ms` with SmsSendError(`what`) unless `work` settles first; `onTimeout` cleans up. */
export function withDeadline<T>(
  work: (settle: { resolve: (v: T) => void; reject: (e: Error) => void }) => void,
  ms: number,
  onTimeout: () => Error,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const timer = setTimeout(() => finish(() => reject(onTimeout())), ms);
    const finish = (f: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      f();
    };
    work({ resolve: (v) => finish(() => resolve(v)), reject: (e) => finish(() => reject(e)) });
  });
}
