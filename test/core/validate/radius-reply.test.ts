// The radius_reply policy value: its items, the attributes it may name, refused items.
import { describe, expect, it } from 'vitest';
import { parseRadiusReply } from '../../../src/core/validate/radius-reply.ts';

describe('radius_reply', () => {
  it('reads <Attribute>=<value> items separated by semicolons', () => {
    expect(parseRadiusReply('Filter-Id={groups}; Session-Timeout=3600;;Class=a=b ')).toEqual([
      { name: 'Filter-Id', value: '{groups}' },
      { name: 'Session-Timeout', value: '3600' },
      { name: 'Class', value: 'a=b' },
    ]);
    expect(parseRadiusReply('')).toEqual([]);
  });

  it('refuses attributes it cannot send and items without a value', () => {
    expect(() => parseRadiusReply('Framed-IP-Address=10.0.0.1')).toThrow(/Invalid radius_reply item/);
    expect(() => parseRadiusReply('Filter-Id')).toThrow(/Class, Filter-Id, Session-Timeout, Reply-Message/);
  });
});
