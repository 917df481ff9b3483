// POST /system/test/<tokentype> (reference 8.1): the type tries its system configuration with the
// request's parameters (the e-mail token sends a test mail); types without a test answer false.

import { ParameterError } from '../../errors.ts';
import { findTokenType } from '../../tokens/index.ts';
import type { Context } from '../context.ts';
import { outboxOf } from './outbox.ts';
import { typeSettings } from './settings.ts';

export async function testTokenConfig(
  ctx: Context,
  type: string,
  params: Readonly<Record<string, string>>,
): Promise<{ value: boolean; description: string }> {
  const t = findTokenType(type);
  if (!t) throw new ParameterError(`Unknown token type '${type}'`);
  return t.testConfig(params, { settings: await typeSettings(ctx), outbox: outboxOf(ctx) });
}
