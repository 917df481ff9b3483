// The system configuration as token types read it, and the numbers enrollment takes from it.
import type { TypeSettings } from '../../tokens/index.ts';
import type { Runtime } from '../context.ts';
import { configSnapshot } from '../system/index.ts';

/** The system configuration as token types read it. */
export async function typeSettings(rt: Runtime): Promise<TypeSettings> {
  const rows = await configSnapshot(rt);
  return {
    get: (k) => {
      const row = rows.get(k);
      return row && row.type !== 'password' ? row.value : undefined;
    },
  };
}

export function intSetting(settings: TypeSettings, key: string, fallback: number): number {
  const n = Number(settings.get(key));
  return Number.isInteger(n) && n > 0 ? n : fallback;
}
