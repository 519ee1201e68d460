import { bindConfig, Configuration } from '@arbiter/platform';
import { Module } from '@nestjs/common';
import { EventWindowConfigService } from './application/event-window-config.service';
import { LiveWindowsService } from './application/live-windows.service';
import { EventWindowMetrics } from './application/metrics';
import { EventWindowSimulationService } from './application/simulation.service';
import { EventWindowsSettings } from './event-windows.settings';
import { EventWindowsController } from './http/event-windows.controller';
import {
  EventWindowConfigRepository,
  TypeOrmEventWindowConfigRepository,
} from './persistence/event-window-config.repository';

/** Event windows (CEP, spec 2): configurations, simulation, live windows partitioned over NATS. */
@Module({
  controllers: [EventWindowsController],
  providers: [
    {
      provide: EventWindowsSettings,
      inject: [Configuration],
      useFactory: (configuration: Configuration) => {
        const settings = bindConfig(EventWindowsSettings, configuration);
        settings.assertStartupRules();
        return settings;
      },
    },
    { provide: EventWindowConfigRepository, useClass: TypeOrmEventWindowConfigRepository },
    EventWindowMetrics,
    EventWindowConfigService,
    EventWindowSimulationService,
    LiveWindowsService,
  ],
  exports: [LiveWindowsService, EventWindowMetrics],
})
export class EventWindowsModule {}
