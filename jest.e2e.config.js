// End-to-end tier: the built apps as separate processes, driven through the gateway's HTTP API.
module.exports = require('./jest.preset.js')(['<rootDir>/apps/e2e/src/**/*.e2e.spec.ts'], {
  globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
  testTimeout: 300000,
  maxWorkers: 1,
  // Results are what count; a leaked handle (a child process a failed test left behind) must not
  // keep the run open until CI's time limit.
  forceExit: true,
});
