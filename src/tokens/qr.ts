// QR codes of the enrollment detail, as PNG data URIs. lean-qr encodes (no dependencies; its PNG
// writer uses node:zlib), where the qrcode package used before brought a command-line parser the
// server never runs.
import { correction, generate } from 'lean-qr';
import { toPngDataURL } from 'lean-qr/extras/node_export';

const BLACK = [0, 0, 0, 255] as const;
const WHITE = [255, 255, 255, 255] as const;

/** The QR code of a text, drawn as the qrcode package drew it: level M, 4 pixels a module, 4 modules of margin. */
export function qrDataUrl(text: string): string {
  const code = generate(text, { minCorrectionLevel: correction.M, maxCorrectionLevel: correction.M });
  return toPngDataURL(code, { scale: 4, pad: 4, on: BLACK, off: WHITE });
}
