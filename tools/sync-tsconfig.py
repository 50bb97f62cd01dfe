#!/usr/bin/env python3
"""Regenerates the root tsconfig.json (typecheck, source paths) and tsconfig.build.json (project references)."""
import json, os
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(root)
pkgs = [(k, n) for k in ['libs', 'apps'] for n in sorted(os.listdir(k)) if os.path.exists(f'{k}/{n}/tsconfig.lib.json')]
paths = {f'@openwop/{n}': [f'./{k}/{n}/src/index.ts'] for k, n in pkgs}
with open('tsconfig.json', 'w') as f:
    json.dump({"extends": "./tsconfig.base.json",
               "compilerOptions": {"noEmit": True, "allowImportingTsExtensions": True, "types": ["node", "jest"], "paths": paths},
               "include": ["libs/*/src/**/*.ts", "apps/*/src/**/*.ts", "tools/**/*.ts", "tools/**/*.mts"],
               "exclude": ["**/dist/**", "node_modules"]}, f, indent=2)
    f.write('\n')
with open('tsconfig.build.json', 'w') as f:
    json.dump({"files": [], "references": [{"path": f'./{k}/{n}/tsconfig.lib.json'} for k, n in pkgs]}, f, indent=2)
    f.write('\n')
