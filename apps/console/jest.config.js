module.exports = {
  ...require('../../jest.preset'),
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test'],
};
