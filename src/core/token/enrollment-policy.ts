// The opt-in enrollment scope (reference 5.3, 5.5): the values of enrollment actions for the owner
// of a token (or, for a token without owner, for the realm it goes into). Matched by the owner's
// login, realm and resolver, the client and node, and userinfo conditions. Also declares the
// per-type actions this reads (`<type>_max_token_per_user`, …) and the per-type enrollment
// defaults of the admin and user scopes (`hotp_hashlib`, `totp_timestep`, …).
import { type MatchRequest, registerDynamicActions } from '../../policy/index.ts';
import { tokenTypes } from '../../tokens/index.ts';
import type { Context } from '../context.ts';
import type { ResolvedUser } from '../directory/index.ts';
import { compiledPolicies } from '../policy/index.ts';

for (const t of tokenTypes()) {
  registerDynamicActions('enrollment', {
    [`${t.type}_max_token_per_user`]: {
      type: 'int',
      description: `Maximum number of ${t.type} tokens of a user.`,
      group: 'token',
    },
    [`${t.type}_max_active_token_per_user`]: {
      type: 'int',
      description: `Maximum number of active ${t.type} tokens of a user.`,
      group: 'token',
    },
  });
}
for (const scope of ['admin', 'user'] as const) {
  for (const type of ['hotp', 'totp']) {
    registerDynamicActions(scope, {
      [`${type}_hashlib`]: {
        type: 'str',
        description: `Default hash algorithm of ${type} tokens.`,
        group: type,
        values: ['sha1', 'sha256', 'sha512'],
      },
      [`${type}_otplen`]: {
        type: 'int',
        description: `Default OTP length of ${type} tokens.`,
        group: type,
        values: ['6', '8'],
      },
    });
  }
  registerDynamicActions(scope, {
    hotp_2step: {
      type: 'str',
      description: 'Two-step enrollment of hotp tokens (the client adds part of the seed).',
      group: 'hotp',
      values: ['allow', 'force'],
    },
    totp_2step: {
      type: 'str',
      description: 'Two-step enrollment of totp tokens (the client adds part of the seed).',
      group: 'totp',
      values: ['allow', 'force'],
    },
    totp_timestep: {
      type: 'int',
      description: 'Default time step of totp tokens.',
      group: 'totp',
      values: ['30', '60'],
    },
  });
}

for (const type of ['hotp', 'totp']) {
  const sizes: [string, string][] = [
    ['clientsize', 'Bytes of the client part of a two-step enrollment (default 8).'],
    ['serversize', 'Bytes of the server part of a two-step enrollment (default 20).'],
    ['difficulty', 'PBKDF2 rounds of a two-step enrollment (default 10000).'],
  ];
  registerDynamicActions(
    'enrollment',
    Object.fromEntries(
      sizes.map(([k, description]) => [
        `${type}_2step_${k}`,
        { type: 'int' as const, description, group: type },
      ]),
    ),
  );
}

/** Whom an enrollment policy is matched for: the token owner, else the realm the token goes into. */
export interface EnrollmentSubject {
  owner?: ResolvedUser | undefined;
  realm?: string | undefined;
}

function request(ctx: Context, s: EnrollmentSubject, action: string): MatchRequest & { action: string } {
  const o = s.owner;
  return {
    scope: 'enrollment',
    action,
    user: o?.login ?? '',
    realm: o?.realm ?? s.realm?.toLowerCase() ?? '',
    resolver: o?.resolver ?? '',
    client: ctx.caller.client,
    servicenode: ctx.node,
    time: ctx.clock(),
    conditionData: o ? { userinfo: o.info } : {},
  };
}

/** Every value of an enrollment action (value → policy names), from all matching policies. */
export async function enrollmentValues(
  ctx: Context,
  s: EnrollmentSubject,
  action: string,
  allowWhiteSpace = false,
): Promise<Map<string, string[]>> {
  const set = await compiledPolicies(ctx);
  if (!set.hasActive('enrollment')) return new Map();
  return set.actionValues(request(ctx, s, action), { allowWhiteSpace });
}

/** The single value of an enrollment action (conflicts at the best priority → 303), or undefined. */
export async function enrollmentValue(
  ctx: Context,
  s: EnrollmentSubject,
  action: string,
  allowWhiteSpace = false,
): Promise<string | undefined> {
  const set = await compiledPolicies(ctx);
  if (!set.hasActive('enrollment')) return undefined;
  return set.actionValue(request(ctx, s, action), { allowWhiteSpace });
}

/** Whether a boolean enrollment action is set for the subject. */
export async function enrollmentIsSet(ctx: Context, s: EnrollmentSubject, action: string): Promise<boolean> {
  const set = await compiledPolicies(ctx);
  return set.hasActive('enrollment') && set.isSet(request(ctx, s, action));
}

/** The largest integer value of a limit action (privacyIDEA takes the maximum), or undefined. */
export async function enrollmentLimit(
  ctx: Context,
  s: EnrollmentSubject,
  action: string,
): Promise<number | undefined> {
  const values = [...(await enrollmentValues(ctx, s, action)).keys()]
    .map((v) => Number.parseInt(v, 10))
    .filter((n) => Number.isInteger(n));
  return values.length ? Math.max(...values) : undefined;
}
