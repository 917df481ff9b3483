// Application-specific password (reference 3.1, 4.5): a static password as for `pw`, tied to one
// service through the required tokeninfo `service_id`. privacyIDEA uses the token only for requests
// that name the same service (case-insensitive), hence useForAuthentication.
import { ParameterError } from '../errors.ts';
import { PasswordTokenType, randomPassword } from './password-type.ts';
import type { AuthRequestInfo, Enrollment, EnrollRequest, TokenState } from './token-type.ts';

/** privacyIDEA's default length of a generated application-specific password. */
const DEFAULT_LENGTH = 23;

export class ApplspecType extends PasswordTokenType {
  readonly type = 'applspec';
  readonly prefix = 'ASPW';
  readonly description =
    'Application Specific Password: A token with a fixed password. Can be used for certain applications or services.';
  protected readonly detailKey = 'password';

  protected async generatedPassword(req: EnrollRequest): Promise<string> {
    const length = Number(req.settings.get('applspec.length') ?? DEFAULT_LENGTH) || DEFAULT_LENGTH;
    return randomPassword(length, req.random);
  }

  override async enroll(req: EnrollRequest): Promise<Enrollment> {
    const serviceId = req.params.service_id;
    if (!serviceId) throw ParameterError.missing('service_id');
    const e = await super.enroll(req);
    return { ...e, info: { ...e.info, service_id: serviceId } };
  }

  override useForAuthentication(token: TokenState, request: AuthRequestInfo): boolean {
    const mine = token.info.service_id;
    return !!mine && !!request.serviceId && mine.toLowerCase() === request.serviceId.toLowerCase();
  }
}
