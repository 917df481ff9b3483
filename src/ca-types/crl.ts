// Reading back a CRL file: when it must be made again (its next update within the overlap period).
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

/** The next update of a PEM CRL; undefined when the text is no CRL or names none. */
export function crlNextUpdate(pem: string): Date | undefined {
  try {
    return new x509.X509Crl(pem.trim()).nextUpdate;
  } catch {
    return undefined;
  }
}
