/**
 * The behaviour of `mq emulator start` (the commander wiring lives with the CLI): start, print a
 * banner a shell can eval, run until SIGINT/SIGTERM (or the given AbortSignal), shut down cleanly.
 * The first stdout line is a contract scripts wait for: `mq emulator listening on http://H:P/v1`.
 */
import { isIP } from 'node:net';

import { startEmulator, type StartEmulatorOptions } from './start-emulator.js';

export interface EmulatorStartOptions extends StartEmulatorOptions {
  /** True when the host came from an explicit `--host` flag (required for non-loopback hosts). */
  hostExplicit?: boolean;
  /** Stops the emulator when aborted; without it SIGINT/SIGTERM do. */
  signal?: AbortSignal;
}

export interface EmulatorIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return h === '::1' || h === '0:0:0:0:0:0:0:1';
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
  const { hostExplicit, signal, ...startOptions } = options;
  const host = startOptions.host ?? '127.0.0.1';
  if (!isLoopback(host) && !hostExplicit) {
    io.stderr(`mq: emulator: refusing to listen on non-loopback host ${host}\nhint: pass --host ${host} explicitly to expose the emulator\n`);
    return 2;
  }
  let emu;
  try {
    emu = await startEmulator({ ...startOptions, host, log: startOptions.log ?? ((l) => io.stderr(`${l}\n`)) });
  } catch (err) {
    io.stderr(`mq: emulator: could not start: ${(err as Error).message}\n`);
    return 1;
  }
  io.stdout(`mq emulator listening on ${emu.url}\n`);
  io.stdout(`export MQ_API_URL=${shellQuote(emu.url)}\n`);
  io.stdout(`export MQ_TOKEN=${shellQuote(emu.token)}\n`);
  if (!isLoopback(host)) io.stderr(`warning: the emulator is reachable from other machines on ${host}\n`);
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
