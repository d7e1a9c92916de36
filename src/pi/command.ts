// /mailbox: show this session's address, send a request, or prune closed sessions' folders.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { displayName } from "../domain/mail/addressing.js";
import type { MailboxEngine } from "../domain/mail/engine/index.js";
import { describePruned } from "../domain/mail/prune-rules.js";
import { describeSendError, describeSent, describeStoreError } from "./texts.js";

type EngineRef = () => MailboxEngine | undefined;

const usage = "Usage: /mailbox (show this session's address), /mailbox <to> <text>, /mailbox prune";

export type MailboxCommand =
  | { kind: "show" }
  | { kind: "prune" }
  | { kind: "send"; to: string; text: string }
  | { kind: "usage" };

/** `prune` alone prunes; `prune <text>` is a request to a session named prune. */
export function parseMailboxCommand(args: string): MailboxCommand {
  const trimmed = args.trim();
  if (trimmed === "") return { kind: "show" };
  if (trimmed === "prune") return { kind: "prune" };
  const match = /^(\S+)\s+([\s\S]+)$/.exec(trimmed);
  if (match === null) return { kind: "usage" };
  return { kind: "send", to: match[1]!, text: match[2]!.trim() };
}

export function registerMailboxCommand(pi: ExtensionAPI, engine: EngineRef): void {
  pi.registerCommand("mailbox", {
    description:
      "Show this session's mail address, send a request to another session, or prune closed sessions' mailboxes",
    getArgumentCompletions(prefix) {
      const current = engine();
      if (current === undefined || /\s/.test(prefix)) return null;
      const items = current
        .list()
        .filter((s) => !s.self)
        .flatMap((s) => {
          const name = displayName(s);
          return [{ value: name, label: name, description: `${s.address} · ${s.state}` }];
        })
        .concat([{ value: "prune", label: "prune", description: "remove closed sessions' mailbox folders" }])
        .filter((item) => item.value.startsWith(prefix));
      return items.length > 0 ? items : null;
    },
    async handler(args, ctx) {
      const current = engine();
      if (current === undefined) {
        ctx.ui.notify("This session's mailbox is not running.", "error");
        return;
      }
      const command = parseMailboxCommand(args);
      switch (command.kind) {
        case "show": {
          const me = current.identity();
          ctx.ui.notify(
            me === undefined ? "No address yet." : `Address ${me.address}, name ${displayName(me)}`,
            "info",
          );
          return;
        }
        case "prune": {
          const pruned = current.prune();
          if (pruned.isErr()) ctx.ui.notify(`Prune failed: ${describeStoreError(pruned.error)}`, "error");
          else ctx.ui.notify(describePruned(pruned.value), "info");
          return;
        }
        case "send": {
          const sent = current.request(command.to, command.text, "command");
          if (sent.isErr()) ctx.ui.notify(describeSendError(sent.error), "error");
          else if (sent.value.unsynced === undefined) {
            ctx.ui.notify(`Sent ${sent.value.envelope.id} to ${sent.value.envelope.to}`, "info");
          } else ctx.ui.notify(describeSent(sent.value, sent.value.envelope.to), "warning");
          return;
        }
        case "usage":
          ctx.ui.notify(usage, "warning");
          return;
        default: {
          const never: never = command;
          return never;
        }
      }
    },
  });
}
