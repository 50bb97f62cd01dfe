module.exports = require('./jest.preset.js')(['<rootDir>/{libs,apps}/*/src/**/*.unit.spec.ts']);
