import type { Config } from '../../config.js';
import type { Database } from '../../db/connection.js';
import type { Logger } from 'pino';
import type { AcquirerRouter } from '../../acquirer/router.js';

/** What the operations routes use: the database (readiness), the acquirer (its warnings), the configuration and the logger. */
export interface OpsRouteDeps {
  config: Config;
  database: Database;
  logger: Logger;
  acquirer: AcquirerRouter;
}
