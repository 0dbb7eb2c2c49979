/** Public surface of the emulator (the CLI wires `mq emulator start` to runEmulatorStart). */
export {
  DEFAULT_HOST,
  startEmulator,
  type RunningEmulator,
  type StartEmulatorOptions,
} from './start-emulator.js';
export { runEmulatorStart, type EmulatorIo, type EmulatorStartOptions } from './start-command.js';
export { QueueEngine, EngineError } from './engine/index.js';
export { StateLoadError } from './store.js';
export { WebhookDispatcher, type WebhookTarget, type WireDelivery } from './webhooks.js';
