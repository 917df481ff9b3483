// Monitoring (/monitoring/, reference 7.3): time series of free stats keys (the option names of the
// SimpleStats task module, the stats_key of EventCounter tasks), each value an integer with its UTC
// time; listing the keys, the values of a key in a window (bounds with or without an offset, see
// time.ts), its last value, deleting a window; and the last value of every key for GET /metrics.
export {
  deleteStatsValues,
  lastStatsValue,
  lastStatsValues,
  type StatsPoint,
  type StatsWindow,
  statsKeys,
  statsValues,
  type WriteOptions,
  writeStatsValue,
} from './stats.ts';
