// CRLRefresh: writes again every CA connector's CRL whose next update falls within the
// connector's CRL_Overlap_Period (or whose CRL file is missing), so that relying parties never
// hold an expired CRL (privacyIDEA leaves this to `pi-manage ca create_crl` in a cron job).
import { refreshCrls } from '../core/caconnector/index.ts';
import type { TaskModule } from './task-module.ts';

export const crlRefresh: TaskModule = {
  name: 'CRLRefresh',
  description: 'Regenerates the CRLs of CA connectors whose next update is within the overlap period.',
  options: {},
  async run(rt) {
    return refreshCrls(rt);
  },
};
