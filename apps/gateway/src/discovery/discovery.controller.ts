import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { ApiKeyRegistry } from '../auth/api-key.registry';
import { parseBearerToken } from '../auth/bearer-token.parser';
import { Public } from '../auth/require-scope.decorator';
import { ApiError } from '../common/api.error';
import { API_KEY_REGISTRY } from '../gateway.di-tokens';
import { RequestMajor } from '../common/protocol-negotiation.middleware';
import type { ProtocolMajor } from '../common/protocol-version';
import { sendValidatedJson, validatedJson, type ValidatedJson } from './conditional-get';
import { multiPartySeamEnabled } from '../host-sample/test-seams.config';
import { buildV2DiscoveryDocument, versionAdvertisement } from './discovery-v2.document';
import { AUTH_SCOPED_DISCOVERY, scopedDiscoveryDocument } from './discovery-scope';
import { buildDiscoveryDocument } from './discovery.document';
import { servedGatewayRoutes } from './gateway-routes.constants';
import { HOST_CONFIG, type HostConfig } from '@openwop/platform-nest';
import { OAUTH_PROVIDERS, type OAuthProviders } from '../oauth-connect/oauth-providers.provider';

/** How long clients and caches may keep the discovery document (capabilities.md §Endpoint). */
export const DISCOVERY_CACHE_CONTROL = 'public, max-age=300';
/** The same for a key's scoped view (RFC 0011): no shared cache may hand it to another caller. */
export const DISCOVERY_PRIVATE_CACHE_CONTROL = 'private, max-age=300';

/**
 * `GET /.well-known/openwop`: the capability declaration, served without credentials, with a strong
 * `ETag` that a conditional request revalidates to `304` whatever its `Cache-Control` says. One
 * resource, two representations chosen by `OpenWOP-Version` (v2 capabilities.md §1; ADR 0041):
 * header-less or major 1, the v1 document with `protocolVersions` and `preferredVersion` added and
 * the `ETag` also as `Capabilities-Etag` (v1's capabilities-change-detection.md keeps it until v1
 * end of support); major 2, the closed v2 root, without `Capabilities-Etag` (v2 removed it).
 */
@Controller()
@Public()
export class DiscoveryController {
  private readonly v1Document: Record<string, unknown> = {
    ...buildDiscoveryDocument(undefined, servedGatewayRoutes(multiPartySeamEnabled())),
    ...versionAdvertisement(),
    discovery: AUTH_SCOPED_DISCOVERY,
  };
  private readonly v1 = validatedJson(this.v1Document);
  private readonly v2: ValidatedJson;
  /** The scoped v1 views, one per set of scopes a key holds (a handful in practice). */
  private readonly scoped = new Map<string, ValidatedJson>();

  constructor(
    @Inject(API_KEY_REGISTRY) private readonly keys: ApiKeyRegistry,
    @Inject(HOST_CONFIG) config: HostConfig,
    @Inject(OAUTH_PROVIDERS) providers: OAuthProviders,
  ) {
    this.v2 = validatedJson(
      buildV2DiscoveryDocument({ publicUrl: config.publicUrl, providers: [...providers.values()] }),
    );
  }

  /**
   * Without `Authorization`, the public document. With a valid key, RFC 0011's `same-endpoint`
   * view: under major 1 the document narrowed to the key's scopes ({@link scopedDiscoveryDocument});
   * the v2 root holds metadata and the `interrupt` record, whose token routes need no scope (RFC
   * 0011's rule keeps it for every key), so it is the same for every key. Either is `private` to the key
   * (`Vary: Authorization`). A key that is presented and does not verify is `401 unauthenticated`.
   */
  @Get('/.well-known/openwop')
  discovery(@Req() req: Request, @Res() res: Response, @RequestMajor() major: ProtocolMajor): void {
    const scopes = this.scopesOf(req.headers.authorization);
    res.setHeader('Vary', 'OpenWOP-Version, Authorization');
    const cacheControl = scopes === undefined ? DISCOVERY_CACHE_CONTROL : DISCOVERY_PRIVATE_CACHE_CONTROL;
    if (major === 2) sendValidatedJson(req, res, this.v2, { cacheControl });
    else sendValidatedJson(req, res, this.v1View(scopes), { cacheControl, capabilitiesEtag: true });
  }

  /** The caller's scopes, or `undefined` for a request without credentials. */
  private scopesOf(authorization: string | undefined): ReadonlySet<string> | undefined {
    if (authorization === undefined) return undefined;
    const token = parseBearerToken(authorization);
    const caller = token === undefined ? undefined : this.keys.verify(token);
    if (!caller) throw new ApiError('unauthenticated', 'The API key is not valid.');
    return caller.scopes;
  }

  private v1View(scopes: ReadonlySet<string> | undefined): ValidatedJson {
    if (scopes === undefined) return this.v1;
    const key = [...scopes].sort().join(' ');
    let view = this.scoped.get(key);
    if (!view) {
      view = validatedJson(scopedDiscoveryDocument(this.v1Document, scopes));
      this.scoped.set(key, view);
    }
    return view;
  }
}
