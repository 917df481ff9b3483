// `authsrv tokengroup`: the groups of /tokengroup/ (reference 6.5). The tokens in a group are
// managed with `authsrv token group`.
import type { Command } from 'commander';
import { deleteTokenGroup, listTokenGroups, setTokenGroup } from '../../core/token/index.ts';
import { namedResourceCommand } from '../named-commands.ts';

export function tokengroupCommand(): Command {
  return namedResourceCommand({
    command: 'tokengroup',
    description: 'token groups: named groups of tokens',
    noun: 'token group',
    inUse: 'while tokens are in it',
    list: listTokenGroups,
    set: setTokenGroup,
    remove: deleteTokenGroup,
  });
}
