// `authsrv stats`: the monitoring values of /monitoring/ (reference 7.3) with the same services and
// error messages: the keys with their last value, the values of a key in a window (or its last
// value), deleting a window (audited). Dates without an offset are in the local time of the
// machine the command runs on, as the server reads them in its own.
import { Command } from 'commander';
import {
  deleteStatsValues,
  lastStatsValue,
  lastStatsValues,
  statsKeys,
  statsValues,
} from '../../core/monitoring/index.ts';
import { notBoth, printJson, printTable, runAudited, withContext } from '../common.ts';

const DATES = "e.g. '2026-11-28 22:00+0200' or '2026-11-28T20:00:00Z'; without an offset, local time";

export function statsCommand(): Command {
  return new Command('stats')
    .description('monitoring statistics: the values the EventCounter and SimpleStats tasks record')
    .addCommand(listCommand())
    .addCommand(showCommand())
    .addCommand(deleteCommand());
}

function listCommand(): Command {
  return new Command('list')
    .description('list the stats keys with their last value')
    .option('--json', 'print JSON (the keys, as GET /monitoring/)')
    .action(async (o: { json?: boolean }, cmd: Command) => {
      const { keys, last } = await withContext(cmd, async (ctx) => ({
        keys: await statsKeys(ctx),
        last: await lastStatsValues(ctx),
      }));
      if (o.json) return printJson(keys);
      printTable(
        ['Key', 'Last value'],
        keys.map((k) => [k, last[k] ?? '']),
      );
    });
}

interface WindowOptions {
  start?: string;
  end?: string;
  json?: boolean;
}

function showCommand(): Command {
  return new Command('show')
    .argument('<key>', 'the stats key')
    .description('the values of a key in a time window (both ends included), oldest first, or its last value')
    .option('--start <date>', `the window's start (${DATES})`)
    .option('--end <date>', "the window's end")
    .option('--last', 'only the last value (as GET /monitoring/<key>/last)')
    .option(
      '--json',
      'print JSON (as GET /monitoring/<key>: [timestamp, value] pairs; with --last the value or null)',
    )
    .action(async (key: string, o: WindowOptions & { last?: boolean }, cmd: Command) => {
      notBoth(o.last, o.start !== undefined || o.end !== undefined, '--last', '--start/--end');
      if (o.last) {
        const value = await withContext(cmd, (ctx) => lastStatsValue(ctx, key));
        if (o.json) return printJson(value);
        console.log(value === null ? `No value of '${key}'.` : String(value));
        return;
      }
      const points = await withContext(cmd, (ctx) => statsValues(ctx, key, { start: o.start, end: o.end }));
      if (o.json) return printJson(points);
      printTable(['Timestamp', 'Value'], points);
    });
}

function deleteCommand(): Command {
  return new Command('delete')
    .argument('<key>', 'the stats key')
    .description('delete the values of a key in a time window (both ends included; without one, all of them)')
    .option('--start <date>', `the window's start (${DATES})`)
    .option('--end <date>', "the window's end")
    .option('--json', 'print {"deleted": N}')
    .action(async (key: string, o: WindowOptions, cmd: Command) => {
      const window = { start: o.start, end: o.end };
      const detail = [key, o.start && `start=${o.start}`, o.end && `end=${o.end}`].filter(Boolean).join(' ');
      const deleted = await runAudited(cmd, { command: 'stats delete', detail }, (ctx) =>
        deleteStatsValues(ctx, key, window),
      );
      if (o.json) return printJson({ deleted });
      console.log(`Deleted ${deleted} value${deleted === 1 ? '' : 's'} of '${key}'.`);
    });
}
