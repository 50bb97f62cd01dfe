// The first import of main.ts: the OpenTelemetry SDK starts before Nest, kafkajs or pg are loaded.
import { startTelemetry } from '@openwop/observability';

startTelemetry('openwop-notifier');
