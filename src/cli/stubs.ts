// Stand-ins for commands not built (name, aliases, summary from src/commands/table.ts), for help and
// "did you mean": `mq queue --help` builds none of the queue's commands.
import { Command } from 'commander';

/** What a parent shows of a command without building it (src/commands/table.ts declares them). */
export interface CommandEntry {
  name: string;
  aliases: string[];
  /** What the parent's help lists: the summary, else the description. */
  summary: string;
  /** The parent's help term: name, first alias, [options], arguments. */
  term: string;
  helpGroup?: string;
  /** A group's subcommands (for the groups that build only the one a command line names). */
  subcommands?: CommandEntry[];
}

/** The help term of each stub, as the fully built command would show it. */
export const STUB_TERMS = new WeakMap<Command, string>();

export function stubOf(entry: CommandEntry): Command {
  const stub = new Command(entry.name).summary(entry.summary).action(() => {
    throw new Error(`internal: command "${entry.name}" was run without being loaded`);
  });
  if (entry.helpGroup) stub.helpGroup(entry.helpGroup);
  for (const alias of entry.aliases) stub.alias(alias);
  STUB_TERMS.set(stub, entry.term);
  return stub;
}

/**
 * Adds a group's subcommands in `builders` order: those named in `argv` (all when undefined) are built,
 * the others are stubs from the command table; one missing from the table is always built.
 */
export function addSubcommands(
  group: Command,
  entries: readonly CommandEntry[] | undefined,
  builders: Record<string, () => Command>,
  argv: readonly string[] | undefined,
): Command {
  const args = argv === undefined ? null : new Set(argv);
  for (const [name, build] of Object.entries(builders)) {
    const entry = entries?.find((e) => e.name === name);
    const wanted = !entry || args === null || args.has(name) || entry.aliases.some((a) => args.has(a));
    if (wanted || !entry) {
      const sub = build();
      if (sub.name() !== name)
        throw new Error(`internal: the builder "${name}" of ${group.name()} made "${sub.name()}"`);
      group.addCommand(sub);
    } else {
      group.addCommand(stubOf(entry));
    }
  }
  return group;
}
