import { ApiError } from './api.error';

/** Unversioned roots the gateway serves; anything else outside `/v<N>/` is a wrong path. */
const UNVERSIONED_ROOTS = ['/healthz', '/readyz', '/.well-known/', '/admin/'];

const VERSIONED = /^\/v\d+(\/|$)/;

/**
 * The answer to a request no route matched. Under a version root (`/v1/...`) or a known unversioned
 * root it is `404 not_found`; anywhere else the spec (rest-endpoints.md §Versioning) wants
 * `400 Bad Request`, answered as `validation_error`.
 */
export function unknownRouteError(method: string, path: string): ApiError {
  if (VERSIONED.test(path) || UNVERSIONED_ROOTS.some((root) => path === root || path.startsWith(root))) {
    return ApiError.notFound(`No route ${method} ${path}`);
  }
  return new ApiError('validation_error', `Unversioned path ${path}: OpenWOP routes live under /v1/`, {
    path,
    supportedVersions: ['v1'],
  });
}
