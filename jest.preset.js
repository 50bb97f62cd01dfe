// Shared Jest settings: ts-jest on sources (isolatedModules for speed), @openwop/* mapped to each package's src.
const fs = require('node:fs');
const path = require('node:path');

const moduleNameMapper = {};
for (const kind of ['libs', 'apps']) {
  for (const name of fs.readdirSync(path.join(__dirname, kind))) {
    const index = path.join(__dirname, kind, name, 'src', 'index.ts');
    if (fs.existsSync(index)) moduleNameMapper[`^@openwop/${name}$`] = index;
  }
}

module.exports = (testMatch, extra = {}) => ({
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch,
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  // .infra holds runtimes, data and checkouts of other releases (the upgrade test's worktree):
  // never tests or modules of this tree.
  modulePathIgnorePatterns: ['<rootDir>/.infra/'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { isolatedModules: true, tsconfig: path.join(__dirname, 'tsconfig.json') }],
  },
  moduleNameMapper,
  ...extra,
});
