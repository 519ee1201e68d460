export { EventWindowsModule } from './event-windows.module';
export { EventWindowErrorFamily, EventWindowErrors } from './errors';
export { EventWindows1732060000900 } from './persistence/migration';
export { EVENT_WINDOW_ENTITIES } from './persistence/entities';
export { EventWindowMetrics } from './application/metrics';
export { LiveWindowsService } from './application/live-windows.service';
