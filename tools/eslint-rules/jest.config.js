module.exports = {
  ...require('../../jest.preset'),
  rootDir: '.',
  roots: ['<rootDir>/src'],
  testRegex: '.*\\.spec\\.js$',
};
