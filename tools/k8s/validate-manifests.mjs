#!/usr/bin/env node
// Validates every object of the Kubernetes manifests in a folder (default: infra/k8s) against the
// Kubernetes API's JSON schemas, as shipped by the npm package `kubernetes-models` (generated from
// the Kubernetes OpenAPI document; no network). Prints one JSON line per object
// `{file, kind, name, errors}` (`errors` empty when valid) and exits 1 when any object is invalid
// or of a kind with no schema there. The Kustomization is kustomize's file, not an API object: it
// is listed with `schema: "kustomize"` and left to the unit spec that reads it.
//
//   node tools/k8s/validate-manifests.mjs [folder]
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

const NOT_API_OBJECTS = new Set(['kustomize.config.k8s.io/v1beta1 Kustomization']);

/** The model class of `apiVersion`/`kind`: `apps/v1` → `kubernetes-models/apps/v1/<Kind>`, `v1` → `kubernetes-models/v1/<Kind>`. */
async function modelOf(apiVersion, kind) {
  if (!/^([a-z0-9.-]+\/)?v[0-9a-z]+$/.test(apiVersion) || !/^[A-Z][A-Za-z0-9]*$/.test(kind)) return undefined;
  try {
    const module = await import(`kubernetes-models/${apiVersion}/${kind}`);
    return module[kind];
  } catch (error) {
    if (error?.code === 'ERR_MODULE_NOT_FOUND' || error?.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED')
      return undefined;
    throw error;
  }
}

const dir = resolve(process.argv[2] ?? new URL('../../infra/k8s', import.meta.url).pathname);
let failed = false;
for (const file of readdirSync(dir)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort()) {
  for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
    if (doc.errors.length) {
      failed = true;
      console.log(JSON.stringify({ file, errors: doc.errors.map((e) => e.message) }));
      continue;
    }
    const object = doc.toJSON();
    if (object === null) continue;
    const { apiVersion, kind } = object;
    const name = object.metadata?.name;
    if (NOT_API_OBJECTS.has(`${apiVersion} ${kind}`)) {
      console.log(JSON.stringify({ file, kind, name, schema: 'kustomize', errors: [] }));
      continue;
    }
    const Model = await modelOf(String(apiVersion), String(kind));
    let errors = [];
    if (!Model) errors = [`no Kubernetes schema for apiVersion ${apiVersion} kind ${kind}`];
    else {
      try {
        new Model(object).validate();
      } catch (error) {
        errors = String(error?.message ?? error).split(', ');
      }
    }
    if (errors.length) failed = true;
    console.log(JSON.stringify({ file, kind, name, errors }));
  }
}
process.exit(failed ? 1 : 0);
