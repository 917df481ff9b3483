// AuditRotation: deletes audit rows older than `max_age` seconds and, beyond that, the oldest rows
// over `max_rows` (the rotation `authsrv audit rotate` and audit.max_age / audit.max_rows do). With
// such a task defined, the server's hourly timer can be switched off (docs/tasks.md).
import { rotateAudit } from '../core/audit/index.ts';
import { ParameterError } from '../errors.ts';
import type { TaskModule } from './task-module.ts';

export const auditRotation: TaskModule = {
  name: 'AuditRotation',
  description: 'Deletes audit rows beyond an age or a number of rows.',
  options: {
    max_age: { type: 'int', required: false, description: 'Delete rows older than this many seconds.' },
    max_rows: { type: 'int', required: false, description: 'Keep at most this many rows, the newest.' },
  },
  check(options) {
    if (!options.max_age && !options.max_rows)
      throw new ParameterError('Task module AuditRotation needs max_age or max_rows (above 0)');
  },
  async run(rt, options) {
    const r = await rotateAudit(rt, {
      maxAgeSeconds: Number(options.max_age ?? 0),
      maxRows: Number(options.max_rows ?? 0),
    });
    return { deletedByAge: r.deletedByAge, deletedByCount: r.deletedByCount };
  },
};
