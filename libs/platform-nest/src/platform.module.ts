import { Global, Module, type DynamicModule } from '@nestjs/common';
import { decidedThroughFor } from './decided-through';
import { decisionProjectionFor } from './decision-projection';
import type { Platform } from './platform';
import {
  BUS,
  DATA_SOURCE,
  DECIDED_THROUGH,
  DECISION_PROJECTION,
  HOST_CONFIG,
  OUTBOX_RELAY,
  RUN_EVENT_FEED,
} from './tokens';

/** Makes one process's platform adapters injectable in every app module. */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(platform: Platform): DynamicModule {
    const providers = [
      { provide: BUS, useValue: platform.bus },
      { provide: DATA_SOURCE, useValue: platform.dataSource },
      { provide: RUN_EVENT_FEED, useValue: platform.feed },
      { provide: OUTBOX_RELAY, useValue: platform.relay },
      { provide: HOST_CONFIG, useValue: platform.config },
      // One registry per process: the engine's and the interrupt's seams register in it.
      { provide: DECIDED_THROUGH, useValue: decidedThroughFor(platform) ?? null },
      // One process only: the projector registers its code, the engine's decisions apply it.
      { provide: DECISION_PROJECTION, useValue: decisionProjectionFor(platform) ?? null },
    ];
    return { module: PlatformModule, providers, exports: providers.map((p) => p.provide) };
  }
}
