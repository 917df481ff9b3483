// Token serial numbers: their syntax, and the generated ones (reference 3.2).
import { ParameterError } from '../../errors.ts';
import type { Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { findToken } from './store/index.ts';

const SERIAL = /^[A-Za-z0-9_.:-]{1,40}$/;

export function checkSerial(serial: string): void {
  checkLength('serial', serial, LIMITS.serial);
  if (!SERIAL.test(serial)) throw new ParameterError('Invalid serial number.');
}

/** `<PREFIX><4-digit count of tokens of the type><4 hex>`, bumped on collision (reference 3.2). */
export async function generateSerial(rt: Runtime, type: string, prefix: string): Promise<string> {
  const row = await rt.store.db
    .selectFrom('token')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tokentype', '=', type)
    .executeTakeFirstOrThrow();
  for (let n = Number(row.n); ; n++) {
    const serial = `${prefix}${String(n).padStart(4, '0')}${rt.random.bytes(2).toString('hex').toUpperCase()}`;
    if (!(await findToken(rt, serial))) return serial;
  }
}
