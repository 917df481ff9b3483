// A new token as enrollment, import and /token/lost create it: the row with what its creator
// decides and the system's token defaults for the rest, and the tokeninfo every new token starts
// with (the store's insertToken writes them).
import type { Insertable } from 'kysely';
import type { TokenTable } from '../../store/index.ts';
import type { TypeSettings } from '../../tokens/index.ts';
import { intSetting } from './settings.ts';
import { creationDate } from './tokeninfo-dates.ts';

/** What the creator of a token decides. */
export interface NewTokenFields {
  serial: string;
  tokentype: string;
  description: string;
  otplen: number;
  key_enc: string;
  pin_hash: string;
  rollout_state?: string;
  count?: number;
}

/** The row of a new token: the fields given, DefaultMaxFailCount/CountWindow/SyncWindow, active. */
export function newTokenRow(settings: TypeSettings, fields: NewTokenFields): Insertable<TokenTable> {
  return {
    rollout_state: '',
    count: 0,
    ...fields,
    maxfail: intSetting(settings, 'DefaultMaxFailCount', 10),
    failcount: 0,
    count_window: intSetting(settings, 'DefaultCountWindow', 10),
    sync_window: intSetting(settings, 'DefaultSyncWindow', 1000),
    active: 1,
    revoked: 0,
    locked: 0,
  };
}

/** The tokeninfo a new token starts with: what it is (software, hardware) and when it was made. */
export function creationInfo(kind: 'software' | 'hardware', now: Date): Record<string, string> {
  return { tokenkind: kind, creation_date: creationDate(now) };
}
