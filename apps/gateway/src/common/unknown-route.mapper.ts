import { ApiError } from './api.error';

/**
 * The answer to a request no route matched: `404 not_found`, on `/v1/…` and on the unversioned
 * path space alike. v1's rule that an unversioned path answers `400` (rest-endpoints.md
 * §Versioning) does not apply on a host that serves v2 there (versioning.md §1.2), and an
 * operation a host does not offer answers `404 not_found` (errors.md §Unadvertised operations).
 */
export function unknownRouteError(method: string, path: string): ApiError {
  return ApiError.notFound(`No route ${method} ${path}`);
}
