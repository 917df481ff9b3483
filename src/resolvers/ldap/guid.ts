// Active Directory's objectGUID: 16 bytes whose first three fields are little-endian (Python's
// UUID(bytes_le=…)), shown and looked up as the usual UUID text.

export function isGuid(attribute: string): boolean {
  return attribute.toLowerCase() === 'objectguid';
}

/** Swaps the byte order of the first three fields (time_low, time_mid, time_hi): its own inverse. */
function swapFields(b: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(b.subarray(0, 4)).reverse(),
    Buffer.from(b.subarray(4, 6)).reverse(),
    Buffer.from(b.subarray(6, 8)).reverse(),
    b.subarray(8),
  ]);
}

/** The UUID text of an objectGUID value (other lengths as hex). */
export function guidToString(b: Buffer): string {
  if (b.length !== 16) return b.toString('hex');
  const h = swapFields(b).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The objectGUID bytes of a UUID text (braces and dashes optional), or undefined when it is none. */
export function guidBytes(uuid: string): Buffer | undefined {
  const hex = uuid.replace(/[{}-]/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) return undefined;
  return swapFields(Buffer.from(hex, 'hex'));
}
