// privacyIDEA's rendering of a task's last_update and last_runs: `%Y-%m-%d %H:%M:%S.%f%z`, here in
// UTC (stored ISO-8601 UTC), e.g. `2026-11-26 06:40:00.000000+0000`.
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

export function formatTimestamp(d: Date): string {
  const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return `${date} ${time}.${pad(d.getUTCMilliseconds(), 3)}000+0000`;
}
