import { controlPlaneService } from '@arbiter/control-plane';
import { decisionsService } from '@arbiter/decisions';
import { identityService } from '@arbiter/identity';
import type { ServiceDefinition } from '@arbiter/platform';
import type { ServiceName } from './documents';

/** Each service's definition, as its app exports it (what `describeService` and the tests start). */
export const SERVICE_DEFINITIONS: Record<ServiceName, ServiceDefinition> = {
  'control-plane': controlPlaneService,
  decisions: decisionsService,
  identity: identityService,
};
