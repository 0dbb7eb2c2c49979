import { join } from 'node:path';

/** mq's config directory (config.json, the code cache's key): MQ_CONFIG_DIR, $XDG_CONFIG_HOME/mq, ~/.config/mq. */
export function configDirOf(env: NodeJS.ProcessEnv, home: () => string): string {
  if (env.MQ_CONFIG_DIR) return env.MQ_CONFIG_DIR;
  return join(env.XDG_CONFIG_HOME || join(home(), '.config'), 'mq');
}
