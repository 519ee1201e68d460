export * from './errors';
export * from './limits';
export { JavaScriptSandbox, sharedJavaScriptSandbox } from './javascript-sandbox';
export type { SandboxedCondition } from './javascript-sandbox';
