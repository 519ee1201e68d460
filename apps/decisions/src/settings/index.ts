export * from './decisions.settings';
export * from './decision-tables.settings';
export * from './scenarios.settings';
