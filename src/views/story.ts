/** A PR's story as lines: its trips newest first, each transition with time, state and reason. */
import type { Story } from '../stats/story.js';
import { clean } from '../stats/story.js';
import type { Style } from '../output/style.js';

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** Lines for a terminal or a pipe (`markdown` gives a list per trip). */
export function storyLines(story: Story, format: 'table' | 'plain' | 'markdown', style: Style, title?: string | null): string[] {
  const lines: string[] = [];
  const md = format === 'markdown';
  const head = `PR #${story.pr}${title ? ` ${clean(title, 120)}` : ''}: ${story.state}${story.runId ? ` (run ${story.runId})` : ''}`;
  lines.push(md ? `### ${mdText(head)}` : format === 'table' ? style.bold(head) : head);
  for (const trip of story.trips) {
    const label = `trip ${trip.number}${trip.endedAt === null ? ' (in the queue)' : `: ${trip.outcome}`}${trip.runId ? ` (run ${trip.runId})` : ''}`;
    if (md) lines.push(`\n**${mdText(label)}**\n`);
    else if (format === 'plain') lines.push(`trip\t${trip.number}\t${trip.endedAt === null ? 'in_queue' : trip.outcome}\t${trip.runId ?? ''}`);
    else lines.push(label);
    for (const step of [...trip.steps].reverse()) {
      if (md) lines.push(`- ${iso(step.at)} \`${step.state}\` ${mdText(step.text)}`);
      else if (format === 'plain') lines.push(`step\t${iso(step.at)}\t${step.state}\t${step.reason}\t${step.runId ?? ''}\t${step.text}`);
      else lines.push(`  ${style.dim(iso(step.at))}  ${step.state.padEnd(15)} ${step.text}`);
    }
  }
  if (story.failingChecks.length > 0) {
    if (format !== 'plain') lines.push(md ? '\n**failing checks**\n' : 'failing checks');
    for (const c of story.failingChecks) {
      if (md) lines.push(`- ${mdText(c.name)} (${c.conclusion.toLowerCase()})${c.url ? ` ${c.url}` : ''}`);
      else if (format === 'plain') lines.push(`check\t${c.name}\t${c.conclusion.toLowerCase()}\t${c.url ?? ''}`);
      else lines.push(`  ${c.name}  ${c.conclusion.toLowerCase()}  ${c.url ?? ''}`);
    }
  }
  return lines;
}

function mdText(t: string): string {
  return t.replace(/[\\|*_<>[\]]/g, (c) => `\\${c}`);
}
