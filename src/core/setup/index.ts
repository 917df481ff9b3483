// The guided first setup of an installation (`authsrv setup`): one service call a step.
export {
  checkUserSource,
  clientSnippets,
  createAdminPolicy,
  createRealm,
  enrollOperatorToken,
  type OperatorToken,
  resolverParams,
  testLogin,
  type UserSource,
} from './setup.ts';
