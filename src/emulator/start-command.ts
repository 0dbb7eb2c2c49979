// `mq emulator start`: start, print an eval-able banner, run until a signal, shut down cleanly.
// The first stdout line is a contract: `mq emulator listening on http://H:P/v1`.
import { BlockList, isIP } from 'node:net';

import type { DataDirError } from './data-dir.js';
import { type RunningEmulator, startEmulator, type StartEmulatorOptions } from './start-emulator.js';
import { type ApiKey, defaultApiKey, parseApiKeySpec } from './http/v2/auth.js';
import { checkWebhookUrl } from '../webhooks/post.js';
import { generateSecret, secretKey } from '../webhooks/signature.js';
import type { WebhookTarget } from './webhooks.js';

export interface EmulatorStartOptions extends StartEmulatorOptions {
  /** True when the host came from an explicit `--host` flag (required for non-loopback hosts). */
  hostExplicit?: boolean;
  /** Stops the emulator when aborted; without it SIGINT/SIGTERM do. */
  signal?: AbortSignal;
  /** `--webhook` URLs, in order. */
  webhookUrls?: string[];
  /** `--webhook-secret` values: none (one is generated), one for every URL, or one per URL in order. */
  webhookSecrets?: string[];
  /** `--api-key NAME=PERMS` values: v2 keys beside the default one. */
  apiKeySpecs?: string[];
}

/** Pairs `--webhook` URLs with secrets; returns any generated secret to show on stderr. */
export function webhookTargets(urls: string[], secrets: string[]): { targets: WebhookTarget[]; generated?: string } {
  if (urls.length === 0) {
    if (secrets.length > 0) throw new Error('--webhook-secret needs at least one --webhook URL');
    return { targets: [] };
  }
  for (const u of urls) {
    try {
      checkWebhookUrl(u);
    } catch (err) {
      throw new Error(`--webhook: ${(err as Error).message}`);
    }
  }
  for (const sec of secrets) {
    try {
      secretKey(sec);
    } catch (err) {
      throw new Error(`--webhook-secret: ${(err as Error).message}`);
    }
  }
  if (secrets.length > 1 && secrets.length !== urls.length) {
    throw new Error(
      `--webhook-secret: give one secret for all URLs or one per --webhook (${urls.length}), not ${secrets.length}`,
    );
  }
  const generated = secrets.length === 0 ? generateSecret() : undefined;
  const secretFor = (i: number) => generated ?? (secrets.length === 1 ? secrets[0] : secrets[i]) ?? '';
  return { targets: urls.map((url, i) => ({ url, secret: secretFor(i) })), ...(generated ? { generated } : {}) };
}

export interface EmulatorIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** localhost, any 127.x.x.x, ::1 in any spelling, and IPv4-mapped ::ffff:127.x.x.x. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === 'localhost.') return true;
  const v = isIP(h);
  return v !== 0 && LOOPBACK.check(h, v === 6 ? 'ipv6' : 'ipv4');
}

const ANY = new BlockList();
ANY.addAddress('0.0.0.0', 'ipv4');
ANY.addAddress('::', 'ipv6');

/** Listening on every address (0.0.0.0, ::): clients on this machine reach it through loopback. */
export function isWildcard(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  const v = isIP(h);
  return v !== 0 && ANY.check(h, v === 6 ? 'ipv6' : 'ipv4');
}

/** Single-quotes a value for POSIX shells when it contains anything beyond a safe set. */
export function shellQuote(v: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`;
}

function waitForStop(signal?: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    if (signal) {
      if (signal.aborted) resolve('abort');
      else signal.addEventListener('abort', () => resolve('abort'), { once: true });
      return;
    }
    const onSignal = (name: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(name);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** Exit codes follow the CLI table: 0 clean stop, 2 refused usage, 1 could not start. */
export async function runEmulatorStart(options: EmulatorStartOptions, io: EmulatorIo): Promise<number> {
  const { hostExplicit, signal, webhookUrls, webhookSecrets, apiKeySpecs, ...startOptions } = options;
  const host = startOptions.host ?? '127.0.0.1';
  if (host.trim() === '') {
    io.stderr(
      `mq: emulator: --host must not be empty\nhint: leave --host out to listen on 127.0.0.1, or give an ` +
        `address such as 0.0.0.0\n`,
    );
    return 2;
  }
  if (!isLoopback(host) && !hostExplicit) {
    io.stderr(
      `mq: emulator: refusing to listen on non-loopback host ${host}\nhint: pass --host ${host} explicitly ` +
        `to expose the emulator\n`,
    );
    return 2;
  }
  let hooks: ReturnType<typeof webhookTargets>;
  try {
    hooks = webhookTargets(webhookUrls ?? [], webhookSecrets ?? []);
  } catch (err) {
    io.stderr(
      `mq: emulator: ${(err as Error).message}\nhint: mq emulator start --webhook ` +
        `https://example.test/hooks --webhook-secret whsec_<base64 key>\n`,
    );
    return 2;
  }
  let extraKeys: ApiKey[];
  try {
    extraKeys = (apiKeySpecs ?? []).map(parseApiKeySpec);
  } catch (err) {
    io.stderr(
      `mq: emulator: --api-key: ${(err as Error).message}\nhint: mq emulator start --api-key ` +
        `dashboard=none --api-key ci=merge,priority\n`,
    );
    return 2;
  }
  let emu: RunningEmulator;
  try {
    emu = await startEmulator({
      ...startOptions,
      ...(extraKeys.length > 0 ? { apiKeys: [defaultApiKey(startOptions.v2Key), ...extraKeys] } : {}),
      host,
      log: startOptions.log ?? ((l) => io.stderr(`${l}\n`)),
      ...(hooks.targets.length > 0 ? { webhooks: [...(startOptions.webhooks ?? []), ...hooks.targets] } : {}),
    });
  } catch (err) {
    const dirErr = (err as Error).name === 'DataDirError' ? (err as DataDirError) : undefined;
    io.stderr(`mq: emulator: could not start: ${(err as Error).message}\n${dirErr ? `hint: ${dirErr.hint}\n` : ''}`);
    return dirErr?.exitCode ?? 1;
  }
  io.stdout(`mq emulator listening on ${emu.url}\n`);
  // A wildcard address is not one a client can connect to: hand out the loopback URL for this machine.
  const clientUrl = isWildcard(host) ? `http://${host.includes(':') ? '[::1]' : '127.0.0.1'}:${emu.port}/v1` : emu.url;
  io.stdout(`export MQ_API_URL=${shellQuote(clientUrl)}\n`);
  io.stdout(`export MQ_TOKEN=${shellQuote(emu.token)}\n`);
  io.stdout(`export MQ_V2_API_KEY=${shellQuote(emu.apiKeys[0]?.key ?? '')}\n`);
  if (!isLoopback(host)) io.stderr(`warning: the emulator is reachable from other machines on ${host}\n`);
  if (hooks.generated)
    io.stderr(`mq emulator: webhook signing secret (verify deliveries with it): ${hooks.generated}\n`);
  for (const t of hooks.targets) io.stderr(`mq emulator: delivering webhooks to ${t.url}\n`);
  for (const k of extraKeys)
    io.stderr(`mq emulator: v2 API key "${k.name}" (${k.permissions.join(',') || 'read only'}): ${k.key}\n`);
  const why = await waitForStop(signal);
  io.stderr(`mq emulator: ${why === 'abort' ? 'stopping' : `received ${why}, stopping`}\n`);
  try {
    await emu.close();
  } catch (err) {
    io.stderr(`mq: emulator: shutdown failed: ${(err as Error).message}\n`);
    return 1;
  }
  return 0;
}
