import { describe, expect, it } from 'vitest';
import { menusFor } from '../../src/policy/admin-actions.ts';
import { definitionsFor, scopes, type TokenTypeActions } from '../../src/policy/definitions.ts';

/** The static table alone: no token type's actions. */
const { actionDef, actionsOf, defsForApi, isKnownAction, rightCandidates } = definitionsFor([]);

describe('policy definitions', () => {
  it('knows the scopes of privacyIDEA 3.13', () => {
    expect([...scopes()].sort()).toEqual(
      [
        'admin',
        'audit',
        'authentication',
        'authorization',
        'container',
        'enrollment',
        'register',
        'token',
        'user',
        'webui',
      ].sort(),
    );
  });

  it('declares the actions of reference 5.5 with their types', () => {
    expect(actionDef('admin', 'policywrite')).toMatchObject({
      type: 'bool',
      group: 'system',
      mainmenu: ['config'],
    });
    expect(actionDef('admin', 'auditlog_age')?.type).toBe('str');
    expect(actionDef('user', 'otp_pin_maxlength')?.type).toBe('int');
    expect(actionDef('user', 'password_reset')?.type).toBe('bool');
    expect(actionDef('admin', 'password_reset')).toBeUndefined();
    expect(actionDef('authentication', 'otppin')?.values).toEqual(['tokenpin', 'userstore', 'none']);
    expect(actionDef('webui', 'login_mode')?.values).toEqual(['userstore', 'privacyIDEA', 'disable']);
    expect(actionDef('webui', 'jwt_validity')?.type).toBe('int');
    expect(actionDef('register', 'registration_body')?.type).toBe('text');
    expect(actionDef('enrollment', 'max_token_per_user')?.type).toBe('int');
    expect(actionDef('authorization', 'authorized')?.values).toEqual(['grant_access', 'deny_access']);
    expect(actionDef('token', 'require_description_on_edit')?.type).toBe('str');
  });

  it('isKnownAction is scope-specific and rejects unknown scopes and inherited names', () => {
    expect(isKnownAction('admin', 'tokenlist')).toBe(true);
    expect(isKnownAction('user', 'tokenlist')).toBe(false);
    expect(isKnownAction('admin', 'nosuch')).toBe(false);
    expect(isKnownAction('nosuch', 'tokenlist')).toBe(false);
    expect(isKnownAction('admin', 'toString')).toBe(false);
    expect(isKnownAction('audit', 'auditlog')).toBe(false);
  });

  it('every declared action has a type, description and group', () => {
    const all = defsForApi() as Record<string, Record<string, { type: string; desc: string; group: string }>>;
    for (const [scope, actions] of Object.entries(all)) {
      for (const [name, d] of Object.entries(actions)) {
        expect(['bool', 'str', 'int', 'text'], `${scope}.${name}`).toContain(d.type);
        expect(d.desc.length, `${scope}.${name}`).toBeGreaterThan(0);
        expect(d.group.length, `${scope}.${name}`).toBeGreaterThan(0);
      }
    }
  });

  it('adds the actions a token type declares without overriding static ones', () => {
    expect(isKnownAction('admin', 'enrollHOTP')).toBe(false);
    const type: TokenTypeActions = {
      type: 'hotp',
      description: 'HOTP tokens.',
      enrollAction: 'enrollHOTP',
      userEnrollable: true,
      policyActions: {
        admin: { tokenlist: { type: 'int', description: 'hijack', group: 'x' } },
        enrollment: {
          hotp_2step: { type: 'str', description: '2step', group: 'HOTP', values: ['allow', 'force'] },
        },
      },
    };
    const withType = definitionsFor([type]);
    expect(withType.actionDef('admin', 'enrollHOTP')?.type).toBe('bool');
    expect(withType.actionDef('admin', 'tokenlist')?.type).toBe('bool');
    expect(withType.defsForApi('enrollment').hotp_2step).toEqual({
      type: 'str',
      desc: '2step',
      group: 'HOTP',
      value: ['allow', 'force'],
    });
    // Pure: the static definitions did not change.
    expect(isKnownAction('admin', 'enrollHOTP')).toBe(false);
  });

  it('defsForApi answers in the shape of GET /policy/defs', () => {
    const all = defsForApi();
    expect(Object.keys(all).sort()).toEqual([...scopes()].sort());
    expect(all.audit).toEqual({});
    expect(defsForApi('admin').tokenlist).toEqual({
      type: 'bool',
      desc: expect.any(String),
      group: 'token',
      mainmenu: ['tokens'],
    });
    expect(defsForApi('nosuch')).toEqual({});
    const cond = defsForApi('conditions') as {
      sections: Record<string, { description: string }>;
      comparators: Record<string, { description: string }>;
    };
    expect(Object.keys(cond.sections)).toEqual(
      expect.arrayContaining([
        'userinfo',
        'tokeninfo',
        'token',
        'HTTP Request header',
        'HTTP Environment',
        'Request Data',
      ]),
    );
    expect(Object.keys(cond.comparators)).toEqual(
      expect.arrayContaining([
        'equals',
        '!equals',
        'contains',
        '!contains',
        'matches',
        '!matches',
        'in',
        '!in',
        '<',
        '>',
        'date_before',
        'date_after',
        'date_within_last',
        '!date_within_last',
        'string_contains',
        '!string_contains',
      ]),
    );
    expect(cond.comparators.equals?.description).toMatch(/equals/);
  });

  it('derives the rights of each scope and the menus they open', () => {
    const ADMIN_ACTIONS = rightCandidates('admin');
    const USER_ACTIONS = rightCandidates('user');
    expect(ADMIN_ACTIONS.slice(0, 3)).toEqual(['enable', 'disable', 'set']);
    expect(ADMIN_ACTIONS).toEqual(Object.keys(actionsOf('admin')));
    expect(ADMIN_ACTIONS).toEqual(expect.arrayContaining(['getrandom', 'auditlog_age', 'container_list']));
    expect(USER_ACTIONS).toEqual(
      expect.arrayContaining(['userlist', 'updateuser', 'auditlog', 'password_reset']),
    );
    expect(USER_ACTIONS).not.toContain('policywrite');
    expect(menusFor(ADMIN_ACTIONS)).toEqual(['tokens', 'users', 'machines', 'config', 'audit', 'components']);
    expect(menusFor(USER_ACTIONS)).toEqual(['tokens', 'users', 'audit']);
    expect(menusFor(['password_reset'])).toEqual([]);
    expect(menusFor(['policyread', 'auditlog'])).toEqual(['config', 'audit']);
    expect(menusFor([])).toEqual([]);
  });
});
