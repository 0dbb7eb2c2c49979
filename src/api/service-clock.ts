// The service's clock as its Date header tells it: which times are believed, and what is worth a warning.

const DAY_MS = 86_400_000;
/** The times a Date header may name (the emulator's clock stops at 2200). */
const SANE_DATES = [0, Date.UTC(2200, 0, 1)] as const;

export const saneServiceTime = (at: number): boolean => at >= SANE_DATES[0] && at <= SANE_DATES[1];

/** What to say of the Date header: out of range is unused; a remote clock a day off is worth a word. */
export function clockWarning(at: number, offset: number, loopback: boolean): string | undefined {
  if (!saneServiceTime(at))
    return "the service's Date header names no time mq can use; times follow this machine's clock";
  if (loopback || Math.abs(offset) <= DAY_MS) return undefined;
  const days = Math.floor(Math.abs(offset) / DAY_MS);
  return (
    `the service's clock is ${days} day${days === 1 ? '' : 's'} ${offset > 0 ? 'ahead of' : 'behind'} this ` +
    `machine's; times follow the service's`
  );
}
