export * from './decisions.settings';
export * from './decision-tables.settings';
