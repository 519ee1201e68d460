export * from './errors';
export * from './limits';
export { compileTemplate } from './compile-template';
export type { CompiledTemplate, CompileTemplateOptions } from './compile-template';
