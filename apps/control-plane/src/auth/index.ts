export { ControlPlaneAuthModule } from './control-plane-auth.module';
export { CONTROL_PLANE_AUTH_SETTINGS, ControlPlaneAuthSettings } from './control-plane-auth.settings';
