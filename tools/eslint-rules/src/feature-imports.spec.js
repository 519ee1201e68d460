const { RuleTester } = require('eslint');
const { featureImports, deepFeatureImport } = require('./feature-imports');

const src = '/repo/apps/control-plane/src';

describe('deepFeatureImport', () => {
  it.each([
    // [importing file, import source, the feature reached into or null]
    [`${src}/canary/application/canary.service.ts`, '../../rulesets/application/errors', 'rulesets'],
    [`${src}/canary/canary.module.ts`, '../rulesets/rulesets.module', 'rulesets'],
    [`${src}/canary/canary.module.ts`, '../rulesets', null],
    [`${src}/canary/canary.module.ts`, '../rulesets/index', null],
    [`${src}/canary/application/canary.service.ts`, '../domain/canary-bucket', null],
    [`${src}/canary/application/canary.service.ts`, './canary-views', null],
    [`${src}/canary/canary.module.ts`, '../version', null],
    [`${src}/control-plane.module.ts`, './rulesets/rulesets.module', null],
    [`${src}/canary/canary.module.ts`, '@arbiter/platform', null],
    [`${src}/canary/canary.module.ts`, '../../../decisions/src/decision-tables/x', null],
    ['/repo/libs/feel/src/compiler.ts', '../../rule-engine/src/x', null],
  ])('%s imports %s: %s', (file, source, expected) => {
    expect(deepFeatureImport(file, source)).toBe(expected);
  });
});

const tester = new RuleTester({ languageOptions: { ecmaVersion: 2022, sourceType: 'module' } });

tester.run('feature-imports', featureImports, {
  valid: [
    { filename: `${src}/canary/canary.module.ts`, code: "import { RuleSetsModule } from '../rulesets';" },
    { filename: `${src}/canary/http/dto.ts`, code: "import { x } from '../application/canary.service';" },
    { filename: `${src}/main.ts`, code: "import { x } from './rulesets/application/save-ruleset';" },
  ],
  invalid: [
    {
      filename: `${src}/canary/application/canary.service.ts`,
      code: "import { SaveRuleSet } from '../../rulesets/application/save-ruleset';",
      errors: [
        {
          message:
            "'../../rulesets/application/save-ruleset' reaches into the 'rulesets' feature: import it through its index ('../../rulesets').",
        },
      ],
    },
    {
      filename: `${src}/execution/execution.module.ts`,
      code: "export * from '../quotas/quotas.module'; const m = import('../canary/canary.module');",
      errors: [{ messageId: 'deep' }, { messageId: 'deep' }],
    },
  ],
});
