import { Module, RequestMethod, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { HttpTraceContextMiddleware } from './http-telemetry.middleware';
import { MetricsController } from './metrics.controller';

/**
 * The gateway's telemetry surface: `GET /metrics`, and the trace context of each request entered
 * again after the body intake (the span, metric and access line start in `httpTelemetry`, which
 * `configureGatewayApp` mounts first).
 */
@Module({ controllers: [MetricsController] })
export class GatewayObservabilityModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpTraceContextMiddleware).forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }
}
