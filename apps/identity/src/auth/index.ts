export { IdentityAuthModule } from './identity-auth.module';
export * from './user-role-crud';
