export * from './types';
export * from './duration';
export {
  checkDefinition,
  CloseListener,
  distinctKey,
  DOTNET_EPOCH_OFFSET_MS,
  numericValue,
  tumblingStart,
  WindowContents,
  WindowEngine,
} from './engine';
export { partitionOf } from './partition';
