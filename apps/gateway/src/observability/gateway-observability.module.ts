import { Module, RequestMethod, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { HttpTracingMiddleware } from './http-tracing.middleware';
import { MetricsController } from './metrics.controller';

/** The gateway's telemetry surface: a SERVER span per request and `GET /metrics`. */
@Module({ controllers: [MetricsController] })
export class GatewayObservabilityModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpTracingMiddleware).forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }
}
