// Module loader hooks (run on the loader thread): record each file module as it is loaded.
import { appendFileSync } from 'node:fs';

export async function load(url, context, nextLoad) {
  if (process.env.MQ_LOAD_LOG && url.startsWith('file:')) appendFileSync(process.env.MQ_LOAD_LOG, `${url}\n`);
  return nextLoad(url, context);
}
