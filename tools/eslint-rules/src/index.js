// The `arbiter` ESLint plugin: the house rules of ../shared/ARCHITECTURE.md that ESLint's own rules cannot say.
const { featureImports } = require('./feature-imports');

module.exports = { rules: { 'feature-imports': featureImports } };
