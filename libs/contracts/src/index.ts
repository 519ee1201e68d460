export * from './cloud-event';
export * from './subjects';
export * from './errors';
export * from './ui-manifest';
export * from './control-plane';
