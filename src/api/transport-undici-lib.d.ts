// Types for the undici modules the proxy transport imports one by one (undici's index would also
// load fetch, WebSocket and the rest, which mq never uses).
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import type { EnvHttpProxyAgent } from 'undici';
  const value: typeof EnvHttpProxyAgent;
  export = value;
}
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const value: typeof Agent;
  export = value;
}
declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool } from 'undici';
  const value: typeof Pool;
  export = value;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import type { Dispatcher } from 'undici';
  const value: typeof Dispatcher;
  export = value;
}
declare module 'undici/lib/api/api-request.js' {
  const value: (...args: unknown[]) => unknown;
  export = value;
}
declare module 'undici/lib/api/api-connect.js' {
  const value: (...args: unknown[]) => unknown;
  export = value;
}
