import { Module } from '@nestjs/common';

/**
 * The token service process. Its aggregate and command handlers arrive with their issue; until
 * then the process joins the platform (database migrations, bus) and idles.
 */
@Module({})
export class TokenModule {}
