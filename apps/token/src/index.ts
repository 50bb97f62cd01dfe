export { TokenModule } from './token.module';
export { TOKEN_COMMANDS_GROUP } from './token-commands/token-commands.consumer';
