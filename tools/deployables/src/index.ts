export * from './deployables';
