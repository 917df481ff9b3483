// What the CA connectors do for certificate tokens (reference 8.5): issue a certificate for a
// CSR or for a key generated here (returned as a password-protected PKCS#12 and never stored),
// revoke a certificate and write the connector's CRL again, and the periodic refresh of CRLs
// whose next update is within the overlap period.
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { caType, crlNextUpdate, type OpenedCa, toPkcs12 } from '../../ca-types/index.ts';
import { ParameterError } from '../../errors.ts';
import type { CertificateAuthorities } from '../../tokens/index.ts';
import type { Runtime } from '../context.ts';
import { type CaConnector, findCaConnector, requireCaConnector } from './definitions.ts';

const SERIAL_BYTES = 16;

async function opened(rt: Runtime, c: CaConnector): Promise<OpenedCa> {
  return caType(c.type).open(c.config, rt.files);
}

/** A positive serial number of 128 bits (RFC 5280: at most 20 octets, positive). */
function newSerial(rt: Runtime): Buffer {
  const b = rt.random.bytes(SERIAL_BYTES);
  b[0] = (b[0]! & 0x7f) | 0x01;
  return b;
}

/** Writes the connector's CRL (when it names a CRL file) from its revoked certificates. */
async function writeCrl(rt: Runtime, c: CaConnector, ca: OpenedCa): Promise<Date | undefined> {
  if (!ca.crlPath) return undefined;
  const rows = await rt.store.db
    .selectFrom('carevoked')
    .select(['serial', 'revoked_at'])
    .where('caconnector_id', '=', c.id)
    .orderBy('id')
    .execute();
  const crl = await ca.crl(
    rows.map((r) => ({ serial: r.serial, revokedAt: new Date(r.revoked_at) })),
    rt.clock(),
  );
  rt.files.checkSetting(ca.crlPath, 'CRL');
  // Written whole beside the file and renamed over it: a reader never sees half a CRL.
  const temporary = `${ca.crlPath}.${process.pid}.${rt.random.bytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, crl.pem, { mode: 0o644 });
    renameSync(temporary, ca.crlPath);
  } catch (e) {
    rmSync(temporary, { force: true });
    throw new ParameterError(
      `CRL: ${ca.crlPath} can not be written (${(e as NodeJS.ErrnoException).code ?? e})`,
    );
  }
  return crl.nextUpdate;
}

/** What core lends the certificate token type: the connectors by name. */
export function certificateAuthoritiesOf(rt: Runtime): CertificateAuthorities {
  return {
    async issue(req) {
      const c = await findCaConnector(rt, req.ca);
      if (!c) throw new ParameterError(`The CA connector '${req.ca}' does not exist.`);
      const ca = await opened(rt, c);
      const serial = newSerial(rt);
      const now = rt.clock();
      if (req.generate) {
        const issued = await ca.issue(
          { template: req.template, generate: { subject: req.generate.subject } },
          now,
          serial,
        );
        const pkcs12 = toPkcs12(
          issued.privateKey!,
          [issued.certificate, ca.caCertificate],
          req.generate.password,
        );
        return { certificate: issued.certificate, serial: issued.serial, pkcs12 };
      }
      const issued = await ca.issue({ template: req.template, csr: req.csr ?? '' }, now, serial);
      return { certificate: issued.certificate, serial: issued.serial };
    },
    async revoke(name, serial) {
      const c = await findCaConnector(rt, name);
      if (!c) {
        rt.log.warn({ ca: name, serial }, 'certificate of a CA connector that no longer exists not revoked');
        return;
      }
      const known = () =>
        rt.store.db
          .selectFrom('carevoked')
          .select('id')
          .where('caconnector_id', '=', c.id)
          .where('serial', '=', serial)
          .executeTakeFirst();
      if (!(await known())) {
        try {
          await rt.store.db
            .insertInto('carevoked')
            .values({ caconnector_id: c.id, serial, revoked_at: rt.clock().toISOString() })
            .execute();
        } catch (e) {
          // A concurrent revocation of the same certificate inserted it first: the unique key holds.
          if (!(await known())) throw e;
        }
      }
      await writeCrl(rt, c, await opened(rt, c));
    },
  };
}

/** authsrv caconnector crl / the CRLRefresh task: writes a connector's CRL now. */
export async function writeCaConnectorCrl(rt: Runtime, name: string): Promise<string | undefined> {
  const c = await requireCaConnector(rt, name);
  const next = await writeCrl(rt, c, await opened(rt, c));
  return next?.toISOString();
}

/**
 * The CRLRefresh task: every connector's CRL whose file is missing or whose next update is within
 * the overlap period is written again. A connector that can not be opened is logged and skipped.
 */
export async function refreshCrls(rt: Runtime): Promise<{ refreshed: number; failed: number }> {
  let refreshed = 0;
  let failed = 0;
  const names = await rt.store.db.selectFrom('caconnector').select('name').orderBy('name').execute();
  for (const { name } of names) {
    try {
      const c = await requireCaConnector(rt, name);
      const ca = await opened(rt, c);
      if (!ca.crlPath) continue;
      let next: Date | undefined;
      try {
        next = crlNextUpdate(rt.files.read(ca.crlPath, 'CRL').toString('utf8'));
      } catch {
        next = undefined;
      }
      const due = rt.clock().getTime() + ca.overlapDays * 86_400_000;
      if (next && next.getTime() > due) continue;
      await writeCrl(rt, c, ca);
      refreshed++;
    } catch (e) {
      failed++;
      rt.log.warn({ ca: name, err: (e as Error).message }, 'CRL refresh failed');
    }
  }
  return { refreshed, failed };
}
