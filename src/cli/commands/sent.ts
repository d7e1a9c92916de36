// `switchboard sent`: what the shell (or a session) sent, newest first, each with where it stands,
// read from the files alone.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Address, isAddress } from "../../domain/mail/address.js";
import { describeAddressError, resolveAddress } from "../../domain/mail/addressing.js";
import type { SentItem } from "../../domain/mail/engine/index.js";
import { sentListedMax } from "../../domain/mail/limits.js";
import { sentStateWords } from "../../domain/mail/sent-state.js";
import type { Command } from "../command.js";
import { exitCodes } from "../exit-codes.js";
import { ago, cell, json, table } from "../format.js";
import { openMailReader } from "../mail-side.js";
import { knownShellAddress, shellSlotsMax, slotAddress } from "../shell-address.js";

export const sent: Command = {
  words: ["sent"],
  summary: "sent mail and where each stands (queued, delivered, read, answered…)",
  args: "",
  description: [
    "Lists the newest mail this shell sent (every slot of its address), or with --from a session's,",
    "newest first: kind, recipient, age, state and first line. States: queued (in the recipient's",
    "inbox), waiting for it to start, held back by its person, delivered (taken, not yet read), read,",
    "held (read by a run that was stopped; the next run answers it), answered.",
  ].join("\n"),
  examples: ["switchboard sent", "switchboard sent --from reviewer --json"],
  options: { from: { type: "string", value: "session", help: "a session's sent mail (name, label, id prefix or id)" } },
  positionals: { min: 0, max: 0 },
  run({ values }, ctx) {
    const reader = openMailReader(ctx);
    const running = reader.list();
    let senders: Address[];
    if (typeof values.from === "string") {
      const wanted = values.from.trim();
      if (wanted === "") return ctx.fail(exitCodes.usage, "--from names no session.");
      const resolved = resolveAddress(wanted, undefined, running);
      const live = resolved.isOk() ? running.find((s) => s.address === resolved.value)?.address : undefined;
      // A session not running is named by its full id, and only one that has a mailbox folder.
      const sender = live ?? (isAddress(wanted) && existsSync(join(ctx.mailRoot, wanted)) ? wanted : undefined);
      if (sender === undefined) {
        const why = resolved.isErr() ? `${describeAddressError(resolved.error)} ` : `${wanted} is not running. `;
        const code = resolved.isErr() && resolved.error.kind !== "not-found" ? exitCodes.error : exitCodes.gone;
        return ctx.fail(code, `${why}No mailbox folder is named that either.`);
      }
      senders = [sender];
    } else {
      // No shell address yet: this shell never sent anything.
      const base = knownShellAddress(ctx.mailRoot);
      senders = base === undefined ? [] : Array.from({ length: shellSlotsMax }, (_, i) => slotAddress(base, i + 1));
    }
    // The newest of every slot together, then the newest sentListedMax of them all.
    const items = senders
      .flatMap((from) => reader.sentBy(from))
      .sort((a, b) => (b.sentAtMs ?? 0) - (a.sentAtMs ?? 0))
      .slice(0, sentListedMax);
    if (ctx.json) {
      const shown = items.map((item) => ({
        ...item,
        toName: item.toName ?? null,
        sentAtMs: item.sentAtMs ?? null,
        sentAt: isoOf(item.sentAtMs),
      }));
      ctx.term.out(json({ sent: shown }));
      return exitCodes.ok;
    }
    if (items.length === 0) {
      ctx.term.out("Nothing sent yet.\n");
      return exitCodes.ok;
    }
    ctx.term.out(
      table(
        ["ID", "KIND", "TO", "SENT", "STATE", "FIRST LINE"],
        items.map((item) => rowOf(item, ctx.term.now())),
        { color: ctx.term.color },
      ),
    );
    return exitCodes.ok;
  },
};

const isoOf = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

function rowOf(item: SentItem, nowMs: number): string[] {
  const to = item.toName === undefined ? item.to.slice(0, 8) : cell(item.toName, 40);
  return [
    item.id.slice(0, 8),
    item.kind,
    to,
    ago(item.sentAtMs, nowMs),
    sentStateWords(item.state, to),
    cell(item.firstLine, 60),
  ];
}
