// What the RADIUS server counts: answers by kind and the datagrams it dropped, by reason. They are
// logged at shutdown and read by the tests; a dropped datagram is never answered.

export const DROP_REASONS = [
  'unknown_client',
  'malformed',
  'bad_authenticator',
  'missing_message_authenticator',
  'unsupported_code',
  'internal_error',
] as const;
export type DropReason = (typeof DROP_REASONS)[number];

export interface RadiusCounters {
  accept: number;
  reject: number;
  challenge: number;
  status: number;
  retransmission: number;
  dropped: Record<DropReason, number>;
}

export function newCounters(): RadiusCounters {
  return {
    accept: 0,
    reject: 0,
    challenge: 0,
    status: 0,
    retransmission: 0,
    dropped: Object.fromEntries(DROP_REASONS.map((r) => [r, 0])) as Record<DropReason, number>,
  };
}
