// ChallengeCleanup: deletes the challenges whose expiration has passed (what privacyIDEA leaves
// to `pi-manage`'s cron jobs). Expired challenges are never answered; they only take room.
import type { TaskModule } from './task-module.ts';

export const challengeCleanup: TaskModule = {
  name: 'ChallengeCleanup',
  description: 'Deletes expired challenges.',
  options: {},
  async run(rt) {
    const r = await rt.store.db
      .deleteFrom('challenge')
      .where('expiration', '<=', rt.clock().toISOString())
      .executeTakeFirst();
    return { deleted: Number(r.numDeletedRows) };
  },
};
