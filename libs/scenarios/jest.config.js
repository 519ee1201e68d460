module.exports = {
  ...require('../../jest.preset'),
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test'].filter((p) =>
    require('node:fs').existsSync(p.replace('<rootDir>', __dirname)),
  ),
};
