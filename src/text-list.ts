// The one reading of a list parameter or setting: a JSON list, or comma-separated text (privacyIDEA
// takes both); blanks around the items and empty items are dropped.

export function textList(value: string | readonly unknown[] | undefined | null): string[] {
  if (value === undefined || value === null) return [];
  const items = typeof value === 'string' ? value.split(',') : value;
  return items.map((item) => String(item).trim()).filter((item) => item !== '');
}
