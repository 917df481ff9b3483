// /smtpserver/ (reference 8.3, spec "SMTP server endpoints"): SMTP server definitions with the
// password censored, and the test mail. privacyIDEA fires no events here (reference 7.1 names none).
import {
  deleteSmtpServer,
  listSmtpServers,
  saveSmtpServer,
  testSmtpServer,
} from '../../core/smtpserver/index.ts';
import { adminRoute, type Handler, type RouteTable } from '../route.ts';

export function smtpserverRoutes(r: RouteTable): void {
  r.add('get', ['/smtpserver/', '/smtpserver/:identifier'], adminRoute('smtpserver_read'), list);
  // Declared before /smtpserver/:identifier, which would otherwise take it for an identifier.
  r.add('post', '/smtpserver/send_test_email', adminRoute('smtpserver_write'), test);
  r.add('post', '/smtpserver/:identifier', adminRoute('smtpserver_write'), save);
  r.add('delete', '/smtpserver/:identifier', adminRoute('smtpserver_write'), remove);
}

const list: Handler = async ({ rt, params }) => ({
  value: await listSmtpServers(rt, params.nonEmpty('identifier')),
});

const test: Handler = async ({ params, context, audit }) => {
  audit.info = params.str('identifier') ?? params.str('server') ?? '';
  const result = await testSmtpServer(context(), params.strings());
  return { value: result.value, detail: { message: result.description } };
};

const save: Handler = async ({ params, context, audit }) => {
  const identifier = params.required('identifier');
  audit.info = identifier;
  await saveSmtpServer(context(), identifier, params.strings());
  return { value: true };
};

const remove: Handler = async ({ params, context, audit }) => {
  const identifier = params.required('identifier');
  audit.info = identifier;
  return { value: await deleteSmtpServer(context(), identifier) };
};
