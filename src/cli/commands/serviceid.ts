// `authsrv serviceid`: the service IDs of /serviceid/ (reference 6.5), with the same services and
// error messages; set and delete write an audit row.
import type { Command } from 'commander';
import { deleteServiceId, listServiceIds, setServiceId } from '../../core/serviceid/index.ts';
import { namedResourceCommand } from '../named-commands.ts';

export function serviceidCommand(): Command {
  return namedResourceCommand({
    command: 'serviceid',
    description: 'service IDs: the services applspec tokens and SSH keys are used for',
    noun: 'service ID',
    inUse: 'while tokens use it',
    list: listServiceIds,
    set: setServiceId,
    remove: deleteServiceId,
  });
}
