/**
 * The library entry (`import { MergeQueueClient } from 'mq-cli'`). It loads the API client and
 * its HTTP layer only: no command-line code (commander, tables, colours, config files).
 * The emulator fixture is a separate entry: `mq-cli/emulator`.
 */
export { MergeQueueClient, VERSION, type MergeQueueClientOptions } from './client.js';
export { MergeQueueError } from './errors.js';
export type * from './types.js';
export type * from './order-types.js';
export { verifyWebhook } from './webhooks.js';
export type * from './webhook-types.js';
