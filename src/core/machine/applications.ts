// GET /application/ (reference 6.4): every machine application with the options it takes, by
// token type, so that a client (privacyIDEA's web UI, authsrv's CLI) can offer them; and the
// options an attachment works with, defaults filled in.
import { type ApplicationOption, applicationNames, machineApplication } from '../../applications/index.ts';

export type ApplicationCatalogue = Record<
  string,
  { options: Record<string, Record<string, ApplicationOption>> }
>;

export function applicationCatalogue(): ApplicationCatalogue {
  const out: ApplicationCatalogue = {};
  for (const name of applicationNames()) {
    const { options } = machineApplication(name);
    out[name] = { options: structuredClone(options) as Record<string, Record<string, ApplicationOption>> };
  }
  return out;
}

/** An attachment's options as its application works with them: defaults filled in. */
export function effectiveOptions(
  application: string,
  options: Readonly<Record<string, string>>,
): Record<string, string | number> {
  return machineApplication(application).effectiveOptions?.(options) ?? { ...options };
}
