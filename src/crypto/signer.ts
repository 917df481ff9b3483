// RSA-PSS signatures (SHA-256, MGF1-SHA-256, maximum salt length) as privacyIDEA makes them for
// responses and audit rows: `rsa_sha256_pss:<lower-case hex>`.
import { constants, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';

const PREFIX = 'rsa_sha256_pss:';

export class Signer {
  readonly publicKeyPem: string;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;

  constructor(privateKey: KeyObject) {
    this.privateKey = privateKey;
    this.publicKey = createPublicKey(privateKey);
    this.publicKeyPem = this.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  }

  sign(text: string): string {
    const sig = sign('sha256', Buffer.from(text, 'utf8'), this.#options());
    return PREFIX + sig.toString('hex');
  }

  /**
   * As sign(), on libuv's thread pool: an RSA signature costs about half a millisecond of CPU,
   * which the event loop then spends answering other requests (the pool runs on the other cores).
   */
  signAsync(text: string): Promise<string> {
    return new Promise((resolve, reject) => {
      sign('sha256', Buffer.from(text, 'utf8'), this.#options(), (err, sig) =>
        err ? reject(err) : resolve(PREFIX + sig.toString('hex')),
      );
    });
  }

  #options() {
    return {
      key: this.privateKey,
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: constants.RSA_PSS_SALTLEN_MAX_SIGN,
    };
  }

  verify(text: string, signature: string): boolean {
    if (!signature.startsWith(PREFIX)) return false;
    const hex = signature.slice(PREFIX.length);
    if (!/^[0-9a-f]+$/.test(hex)) return false;
    return verify(
      'sha256',
      Buffer.from(text, 'utf8'),
      {
        key: this.publicKey,
        padding: constants.RSA_PKCS1_PSS_PADDING,
        saltLength: constants.RSA_PSS_SALTLEN_AUTO,
      },
      Buffer.from(hex, 'hex'),
    );
  }
}
