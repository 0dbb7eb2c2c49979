// `mq notify`'s lazy bundle, and what a webhooks listener calls per verified event (`notifyLeftQueue`).
export { githubComment, slackBody, teamsBody, webhookBody } from './bodies.js';
export { closeDelivery } from './deliver.js';
export { buildMessage, type LeftQueueEvent, type LeftState, leftQueueEventOf } from './message.js';
export { deliverMessage, notifyLeftQueue, type NotifyContext, type NotifyOutcome } from './notify.js';
export { resolveSinks, type SinkFlags, type Sinks } from './targets.js';
