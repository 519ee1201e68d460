export { IdentityAuthModule } from './identity-auth.module';
