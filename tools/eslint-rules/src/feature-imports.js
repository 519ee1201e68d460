// Lint rule `arbiter/feature-imports`: inside an app, a feature folder (`apps/<app>/src/<feature>/`) is used
// by the other features only through its `index.ts`. A relative import that lands deeper than another
// feature's folder is reported with the entry point to use instead. Files at the root of `src/` (the
// app module, main, service) assemble the features and are not checked.
const path = require('node:path');

const APP_SOURCE = /^(.*\/apps\/[^/]+\/src)\/([^/]+)\/.+$/;

function featureOf(filename) {
  const match = APP_SOURCE.exec(filename.split(path.sep).join('/'));
  return match ? { srcRoot: match[1], feature: match[2] } : null;
}

/** The other feature a relative import reaches into past its index, or null when the import is fine. */
function deepFeatureImport(filename, source) {
  if (!source.startsWith('.')) return null;
  const own = featureOf(filename);
  if (!own) return null;
  const target = path.posix.resolve(path.posix.dirname(filename.split(path.sep).join('/')), source);
  const relative = path.posix.relative(own.srcRoot, target);
  if (relative.startsWith('..')) return null;
  const [feature, ...rest] = relative.split('/');
  if (feature === own.feature || rest.length === 0) return null;
  if (rest.length === 1 && rest[0] === 'index') return null;
  return feature;
}

const featureImports = {
  meta: {
    type: 'problem',
    docs: { description: 'a feature folder is imported by other features only through its index.ts' },
    messages: {
      deep: "'{{source}}' reaches into the '{{feature}}' feature: import it through its index ('{{entry}}').",
    },
    schema: [],
  },
  create(context) {
    const filename = context.filename;
    const check = (node) => {
      if (!node || node.type !== 'Literal' || typeof node.value !== 'string') return;
      const feature = deepFeatureImport(filename, node.value);
      if (!feature) return;
      const entry = node.value.slice(0, node.value.indexOf(`${feature}/`) + feature.length);
      context.report({ node, messageId: 'deep', data: { source: node.value, feature, entry } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      TSImportEqualsDeclaration: (node) => check(node.moduleReference?.expression),
    };
  },
};

module.exports = { featureImports, deepFeatureImport };
