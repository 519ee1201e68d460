export * from './event-bus';
export * from './in-process-event-bus';
export * from './nats-event-bus';
export * from './event-bus.transport';
export * from './event-bus.module';
