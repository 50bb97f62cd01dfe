export { InterruptModule } from './interrupt.module';
export { InterruptCommandsConsumer } from './interrupt-commands.consumer';
export { InterruptTimerService, TIMER_PRINCIPAL } from './interrupt-timer.service';
export {
  CLOCK,
  INTERRUPT_TIMER_OPTIONS,
  timerOptionsFromEnv,
  type Clock,
  type InterruptTimerOptions,
} from './interrupt.di-tokens';
