/**
 * The rule library: define code-based rules (`defineRule` or `@Rule` classes), register them in a
 * `RuleLibrary` (the `codeRules` port), emit the catalog manifest (`generateManifest`; the CLI that
 * writes it is the `@arbiter/rule-manifest` tool), and compile `code-based` rule sets (`compileCodeBased`).
 */
export * from './contract';
export * from './define-rule';
export * from './rule-library';
export * from './manifest';
export * from './code-based';
export * from './builtin';
