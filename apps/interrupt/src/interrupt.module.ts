import { Module } from '@nestjs/common';
import { ClaimInterruptHandler } from './claim-interrupt/claim-interrupt.handler';
import { CancelRunHandler } from './cancel-run/cancel-run.handler';
import { ConversationRepository } from './common/conversation.repository';
import { ConversationGate } from './converse/conversation.gate';
import { InterruptRepository } from './common/interrupt.repository';
import { EscalateInterruptHandler } from './escalate-interrupt/escalate-interrupt.handler';
import { ExpireInterruptHandler } from './expire-interrupt/expire-interrupt.handler';
import { InterruptCommandsConsumer } from './interrupt-commands.consumer';
import { InterruptTimerService } from './interrupt-timer.service';
import { CLOCK, INTERRUPT_TIMER_OPTIONS, systemClock, timerOptionsFromEnv } from './interrupt.di-tokens';
import { OpenInterruptHandler } from './open-interrupt/open-interrupt.handler';
import { ResolveInterruptHandler } from './resolve-interrupt/resolve-interrupt.handler';
import { HOST_CONFIG, type HostConfig } from '@openwop/platform-nest';

/**
 * The interrupt service: owns the interrupt aggregate and gates a run's external input (resolve,
 * cancel) in one order per run; its durable timer expires interrupts past their deadline.
 */
@Module({
  providers: [
    { provide: CLOCK, useValue: systemClock },
    {
      provide: INTERRUPT_TIMER_OPTIONS,
      useFactory: (config: HostConfig) => timerOptionsFromEnv(process.env, config.mode),
      inject: [HOST_CONFIG],
    },
    InterruptRepository,
    ConversationRepository,
    ConversationGate,
    OpenInterruptHandler,
    ResolveInterruptHandler,
    CancelRunHandler,
    ExpireInterruptHandler,
    EscalateInterruptHandler,
    ClaimInterruptHandler,
    InterruptCommandsConsumer,
    InterruptTimerService,
  ],
})
export class InterruptModule {}
