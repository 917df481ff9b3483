// Resolvers (/resolver/): named, typed user-store settings with sealed secrets, and their test.
export {
  deleteResolver,
  getResolver,
  listResolvers,
  type ResolverView,
  saveResolver,
  secretSettingNames,
  testResolver,
} from './resolver.ts';
