// `switchboard prune`: the mailbox's prune without the age limit, saying of each folder whether it
// goes and why the others stay.
import { existsSync } from "node:fs";
import type { PruneVerdict } from "../../domain/mail/engine/index.js";
import type { PruneReason } from "../../domain/mail/prune-rules.js";
import { describeStoreError } from "../../domain/mail/store-errors.js";
import type { Command } from "../command.js";
import { exitCodes } from "../exit-codes.js";
import { ago, json, table } from "../format.js";
import { openMailReader } from "../mail-side.js";
import { knownShellAddress } from "../shell-address.js";

const reasons: Record<PruneReason, string> = {
  removed: "removed: a closed session with no unread mail",
  own: "kept: this shell's own",
  running: "kept: the session runs",
  unread: "kept: unread mail waits in it",
  recent: "kept: active recently",
  "owner-live": "kept: a live process holds its inbox",
  raced: "kept: mail arrived or it started while pruning",
  unremovable: "kept: it could not be removed",
};

export const prune: Command = {
  words: ["prune"],
  summary: "remove the mailbox folders of closed sessions with no unread mail",
  args: "",
  description: [
    "Applies the mailbox's prune without its age limit: the folder of every closed session with nothing",
    "unread goes (its read mail and sent copies with it). Lists every folder with what happens to it and",
    "why; --dry-run lists the same and removes nothing.",
  ].join("\n"),
  examples: ["switchboard prune --dry-run", "switchboard prune"],
  options: { "dry-run": { type: "boolean", help: "say what would go, remove nothing" } },
  positionals: { min: 0, max: 0 },
  run({ values }, ctx) {
    const dryRun = values["dry-run"] === true;
    // No mail root yet: nothing to judge (reading it would fail on the missing folder).
    if (!existsSync(ctx.mailRoot)) {
      ctx.term.out(ctx.json ? json({ dryRun, removed: 0, folders: [] }) : "No mailbox folders yet.\n");
      return exitCodes.ok;
    }
    const judged = openMailReader(ctx).pruneVerdicts(dryRun);
    if (judged.isErr())
      return ctx.fail(exitCodes.error, `the mail root cannot be read (${describeStoreError(judged.error)}).`);
    const verdicts = judged.value;
    // Only to mark the shell's own rows: a damaged address file (doctor names it) marks none.
    let base: string | undefined;
    try {
      base = knownShellAddress(ctx.mailRoot);
    } catch {
      base = undefined;
    }
    const isShell = (v: PruneVerdict) => base !== undefined && (v.address === base || v.address.startsWith(`${base}-`));
    const removed = verdicts.filter((v) => v.reason === "removed").length;
    if (ctx.json) {
      ctx.term.out(
        json({
          dryRun,
          removed,
          folders: verdicts.map((v) => ({
            address: v.address,
            shell: isShell(v),
            reason: v.reason,
            lastActivity: new Date(v.lastActivityMs).toISOString(),
          })),
        }),
      );
      return exitCodes.ok;
    }
    if (verdicts.length > 0)
      ctx.term.out(
        table(
          ["FOLDER", "LAST ACTIVE", "VERDICT"],
          verdicts.map((v) => rowOf(v, ctx.term.now(), dryRun, isShell(v))),
          { color: ctx.term.color },
        ),
      );
    const folders = `mailbox folder${removed === 1 ? "" : "s"}`;
    ctx.term.out(
      dryRun
        ? `Would remove ${removed} ${folders} of closed sessions.\n`
        : `Removed ${removed} ${folders} of closed sessions.\n`,
    );
    return exitCodes.ok;
  },
};

function rowOf(v: PruneVerdict, nowMs: number, dryRun: boolean, shell: boolean): string[] {
  const words =
    shell && v.reason === "removed"
      ? "removed: this shell's mailbox, made again when it next sends"
      : reasons[v.reason];
  return [v.address, ago(v.lastActivityMs, nowMs), dryRun ? words.replace(/^removed/, "would go") : words];
}
