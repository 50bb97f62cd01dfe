export { InterruptModule } from './interrupt.module';
