// The bus from a shell with the `session` tool's rules: what is claimed, a send, an inbox read.
import { type BusError, describeBusError } from "../../domain/bus/bus-errors.js";
import type { BusMessage } from "../../domain/bus/bus-files.js";
import { messageTextCharsMax } from "../../domain/bus/limits.js";
import { resolveRecipients } from "../../domain/bus/sending-rules.js";
import { compareText } from "../../domain/shared/text/compare.js";
import { labelWithName } from "../../domain/shared/text/same-label.js";
import { lookAtBus, openRepoBus, type RepoBus, startShellOnBus } from "../bus-side.js";
import type { CliContext, Command } from "../command.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { cell, json, table } from "../format.js";
import { callerSession, openMailReader } from "../mail-side.js";
import { messageText } from "../message-text.js";

export const claims: Command = {
  words: ["claims"],
  summary: "what the sessions of this repository have claimed",
  args: "",
  description: [
    "Lists every path a live session of the current folder's repository holds, with its holder, and",
    "the handoff offers that stand. Observed claims are the ones a session's own edits took.",
  ].join("\n"),
  examples: ["switchboard claims", "switchboard claims --json | jq '.claims[].path'"],
  options: {},
  positionals: { min: 0, max: 0 },
  run(_input, ctx) {
    const bus = openRepoBus(ctx);
    if (typeof bus === "string") return ctx.fail(exitCodes.error, bus);
    const view = lookAtBus(bus);
    if (view.isErr()) return ctx.fail(exitCodes.error, describeBusError(view.error));
    const live = view.value.sessions.filter((s) => s.state === "active");
    const rows = live.flatMap((s) =>
      s.claims.map((path) => ({
        path,
        holder: { id: s.id, label: s.label, name: s.name ?? null },
        observed: s.observed.includes(path),
      })),
    );
    rows.sort((a, b) => compareText(a.path, b.path));
    if (ctx.json) {
      ctx.term.out(json({ root: bus.place.root, claims: rows, offers: view.value.offers }));
      return exitCodes.ok;
    }
    if (rows.length === 0) ctx.term.out("Nothing is claimed in this repository.\n");
    else
      ctx.term.out(
        table(
          ["PATH", "HELD BY", "HOW"],
          rows.map((r) => [
            cell(r.path, 200),
            labelWithName(r.holder.label, r.holder.name ?? undefined, (t) => cell(t, 60)),
            r.observed ? "observed (its edits)" : "claimed",
          ]),
          { color: ctx.term.color },
        ),
      );
    for (const offer of view.value.offers)
      ctx.term.out(
        `Offer: ${cell(offer.from.label)} hands ${cell(offer.to.label)} ${offer.keys.map((k) => cell(k)).join(", ")}\n`,
      );
    return exitCodes.ok;
  },
};

export const busSend: Command = {
  words: ["bus", "send"],
  summary: "send a bus message to a member (or * for everyone)",
  args: "<to|*> <text|->",
  description: [
    "Sends on the bus of the current folder's repository, as the session tool's send does: to a label,",
    "a Pi name or an id, or * (an event to everyone). The shell joins as the member `shell` for this",
    "command only, and leaves. Prints the message id.",
  ].join("\n"),
  examples: [
    'switchboard bus send "*" "main is green again" --kind event',
    'switchboard bus send builder "the parser tests fail on main since 4e1c" --paths src/parse',
  ],
  options: {
    kind: { type: "string", value: "kind", help: "message (default), event, ask or handoff" },
    paths: {
      type: "string",
      value: "path",
      multiple: true,
      help: "a repository path the message is about (repeat for more)",
    },
  },
  positionals: { min: 2, max: 2 },
  async run({ positionals: [to, text], values }, ctx) {
    // A character is at most 4 bytes of UTF-8: past that many bytes, the text is over the limit.
    const body = await messageText(ctx, text!, {
      maxBytes: messageTextCharsMax * 4,
      tooLong: `longer than the limit of ${messageTextCharsMax} characters`,
    });
    if (typeof body !== "string") return body;
    const bus = openRepoBus(ctx, callerSession(ctx, openMailReader(ctx).list()));
    if (typeof bus === "string") return ctx.fail(exitCodes.error, bus);
    if (startShellOnBus(ctx, bus) === undefined)
      return ctx.fail(exitCodes.error, `the mail root ${ctx.mailRoot} cannot be opened.`);
    try {
      const paths = Array.isArray(values.paths) ? values.paths : undefined;
      const sent = bus.engine.send({
        to,
        text: body,
        kind: typeof values.kind === "string" ? values.kind : undefined,
        paths,
      });
      if (sent.isErr()) return ctx.fail(sendErrorCode(sent.error), describeBusError(sent.error));
      const report = sent.value;
      if (ctx.json)
        ctx.term.out(
          json({
            id: report.messageId,
            kind: report.kind,
            paths: report.paths,
            delivered: report.delivered,
            failed: report.failed.map((f) => ({ id: f.id, label: f.label })),
          }),
        );
      else {
        ctx.term.out(`${report.messageId}\n`);
        for (const f of report.failed) ctx.term.err(`switchboard: not delivered to ${cell(f.label)}.\n`);
      }
      return report.failed.length > 0 ? exitCodes.error : exitCodes.ok;
    } finally {
      bus.engine.shutdown("step-out");
    }
  },
};

export const busInbox: Command = {
  words: ["bus", "inbox"],
  summary: "read the shell's bus inbox, or look at a member's",
  args: "[member]",
  description: [
    "Without a member: joins the bus of the current folder's repository as `shell` for this command,",
    "reads (and so consumes) what waits in the shell's inbox, and leaves. With a member (label, Pi name",
    "or id): shows the front of that member's inbox, consuming nothing.",
  ].join("\n"),
  examples: ["switchboard bus inbox", "switchboard bus inbox reviewer --json"],
  options: { limit: { type: "string", value: "n", help: "at most this many messages (default 20)" } },
  positionals: { min: 0, max: 1 },
  run({ positionals: [member], values }, ctx) {
    const given = typeof values.limit === "string" ? values.limit.trim() : "20";
    const limit = /^\d{1,3}$/.test(given) ? Number(given) : 0;
    if (limit < 1 || limit > 200) return ctx.fail(exitCodes.usage, "--limit is a whole number from 1 to 200");
    if (member?.trim() === "*")
      return ctx.fail(exitCodes.usage, "bus inbox reads one member's inbox, not everyone's (*).");
    const bus = openRepoBus(ctx);
    if (typeof bus === "string") return ctx.fail(exitCodes.error, bus);
    return member === undefined ? readOwn(ctx, bus, limit) : peekMember(ctx, bus, member, limit);
  },
};

type Listed = {
  id: string;
  from: string;
  fromLabel: string;
  kind: string;
  paths: string[];
  text: string;
  sentAt: string;
};

function printMessages(ctx: CliContext, messages: readonly Listed[], more: number): void {
  if (ctx.json) {
    ctx.term.out(json({ messages, more }));
    return;
  }
  if (messages.length === 0) ctx.term.out("No bus mail waits.\n");
  for (const m of messages) {
    const paths = m.paths.length === 0 ? "" : ` · paths: ${m.paths.map((p) => cell(p)).join(", ")}`;
    ctx.term.out(`${m.kind} from ${cell(m.fromLabel, 60)} (${m.from})${paths}\n  ${cell(m.text, 2000)}\n`);
  }
  if (more > 0) ctx.term.out(`… ${more} more\n`);
}

const listed = (m: BusMessage): Listed => ({
  id: m.id,
  from: m.from,
  fromLabel: m.fromLabel,
  kind: m.kind,
  paths: m.paths,
  text: m.text,
  sentAt: m.sentAt,
});

function readOwn(ctx: CliContext, bus: RepoBus, limit: number): ExitCode {
  if (startShellOnBus(ctx, bus) === undefined)
    return ctx.fail(exitCodes.error, `the mail root ${ctx.mailRoot} cannot be opened.`);
  try {
    const read = bus.engine.inbox(limit);
    if (read.isErr()) return ctx.fail(exitCodes.error, describeBusError(read.error));
    printMessages(
      ctx,
      read.value.rows.map((r) => listed(r.message)),
      read.value.more,
    );
    return exitCodes.ok;
  } finally {
    bus.engine.shutdown("step-out");
  }
}

function peekMember(ctx: CliContext, bus: RepoBus, wanted: string, limit: number): ExitCode {
  const view = lookAtBus(bus);
  if (view.isErr()) return ctx.fail(exitCodes.error, describeBusError(view.error));
  // The member is found as the session tool's send finds a recipient; the shell is none of them.
  const found = resolveRecipients(wanted, "message", { id: "", label: "" }, view.value.sessions);
  if (found.isErr()) return ctx.fail(sendErrorCode(found.error), describeBusError(found.error));
  const member = view.value.sessions.find((s) => s.id === found.value[0]?.id)!;
  const reader = openRepoBus(ctx);
  if (typeof reader === "string") return ctx.fail(exitCodes.error, reader);
  reader.engine.sessionStarted({ id: member.id, name: member.name }, "startup");
  const peeked = reader.engine.peek(limit);
  if (peeked.isErr()) return ctx.fail(exitCodes.error, describeBusError(peeked.error));
  const messages = peeked.value.entries.flatMap((e) => (e.kind === "message" ? [listed(e.message)] : []));
  printMessages(ctx, messages, Math.max(0, peeked.value.files - messages.length));
  return exitCodes.ok;
}

/** The exit code of a refused bus send (or a member `bus inbox` cannot find), with the meanings of
 * the mail's: bad input is usage, a recipient not on the bus is gone. */
function sendErrorCode(error: BusError): ExitCode {
  switch (error.kind) {
    case "missing":
    case "unknown-kind":
    case "too-many-paths":
    case "empty-text":
    case "text-too-long":
    case "broadcast-needs-event":
    case "self-send":
    case "empty-path":
    case "path-too-long":
    case "repository-root":
    case "worktree-top":
    case "outside-repository":
    // A handoff offers paths its sender holds, and the shell, joined for one command, holds none.
    case "handoff-unheld":
      return exitCodes.usage;
    case "no-recipient":
    case "recipient-gone":
    case "no-peers":
      return exitCodes.gone;
    default:
      return exitCodes.error;
  }
}
