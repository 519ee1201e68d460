import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiPublic, RequestContext } from '@arbiter/platform';
import type { PermissionMatchMode, PermissionRequirement, PolicyName } from './permissions';

export const PUBLIC_KEY = 'arbiter:auth:public';
export const PERMISSIONS_KEY = 'arbiter:auth:permissions';
export const POLICIES_KEY = 'arbiter:auth:policies';
export const ALLOW_EXPIRED_KEY = 'arbiter:auth:allow-anonymous';

/** Marks a route (or a whole controller) as reachable without credentials (and says so in the OpenAPI document). */
export const Public = () => applyDecorators(SetMetadata(PUBLIC_KEY, true), ApiPublic());

function appendMetadata<T>(key: string, value: T): MethodDecorator & ClassDecorator {
  return (target: object, _property?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder = descriptor ? descriptor.value : target;
    const existing: T[] = Reflect.getMetadata(key, holder) ?? [];
    Reflect.defineMetadata(key, [...existing, value], holder);
    return descriptor as never;
  };
}

/**
 * `AuthorizePermission(key, All|Any)` of the spec; repeatable. All-mode keys are all required; of the
 * Any-mode keys at least one must hold; mixed = all All AND at least one Any. On a class it applies to
 * every route of the controller (combined with the route's own requirements).
 */
export function RequirePermissions(key: string, mode: PermissionMatchMode = 'All') {
  return appendMetadata<PermissionRequirement>(PERMISSIONS_KEY, { key, mode });
}

/** Requires a control-plane policy (`cp.admin`, `cp.approver`, `cp.viewer`); repeatable (all required). */
export function RequirePolicy(policy: PolicyName) {
  return appendMetadata<PolicyName>(POLICIES_KEY, policy);
}

/** The authenticated user of the current request (undefined on public routes called anonymously). */
export const CurrentUser = createParamDecorator((_data: unknown, _ctx: ExecutionContext) => {
  return RequestContext.current()?.user;
});
