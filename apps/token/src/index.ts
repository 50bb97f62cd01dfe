export { TokenModule } from './token.module';
