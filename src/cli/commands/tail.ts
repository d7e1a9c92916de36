// `switchboard tail`: one line for each piece of mail and bus message as it is sent and as it is
// taken, across the whole mail root and every bus, until Ctrl-C. It only reads.
import type { BusStore } from "../../ports/bus/bus-store.js";
import { busKeys, createNodeBusStore } from "../../wiring/node-bus.js";
import { createNodeMailStore } from "../../wiring/node-mailbox.js";
import type { CliContext, Command } from "../command.js";
import { exitCodes } from "../exit-codes.js";
import { createFollower, type FollowEvent } from "../follow.js";
import { cell, jsonLine } from "../format.js";
import { openMailReader } from "../mail-side.js";

const lookMs = 250;
const namesMs = 1000;

export const tail: Command = {
  words: ["tail"],
  summary: "follow mail and bus messages as they are sent and taken",
  args: "",
  description: [
    "Prints one line for each piece of mail and each bus message as it is sent, and again as its",
    "recipient takes it: the time, the kind, from → to by name, the state and the first line. It reads",
    "the whole mail root and every bus of this agent dir, and never claims, moves or changes anything.",
    "Runs until Ctrl-C; --json prints one object per line.",
  ].join("\n"),
  examples: ["switchboard tail", "switchboard tail --json | jq -c 'select(.kind == \"ask\")'"],
  options: {},
  positionals: { min: 0, max: 0 },
  run(_input, ctx) {
    const mail = createNodeMailStore(ctx.mailRoot);
    let buses: Bus[] = [];
    let names = new Map<string, string>();
    let namesAtMs = Number.NEGATIVE_INFINITY;
    const refreshNames = () => {
      if (ctx.term.now() - namesAtMs < namesMs) return;
      namesAtMs = ctx.term.now();
      const keys = busKeys(ctx.agentDir);
      if (keys.join("\n") !== buses.map((b) => b.key).join("\n"))
        buses = keys.map((key) => ({ key, store: createNodeBusStore(ctx.agentDir, key) }));
      names = knownNames(ctx, buses);
    };
    refreshNames();
    const follower = createFollower(mail, () => buses, ctx.term.now);
    follower.look();
    ctx.term.err("Following mail and the bus; Ctrl-C stops.\n");
    return new Promise((resolve) => {
      const timer = setInterval(() => {
        refreshNames();
        for (const event of follower.look()) ctx.term.out(lineOf(ctx, event, names));
      }, lookMs);
      const off = ctx.term.onInterrupt(() => {
        clearInterval(timer);
        off();
        resolve(exitCodes.ok);
      });
    });
  },
};

type Bus = { key: string; store: BusStore };

/** Every session's name by id: the mail records' names, else the bus records' (read as they are). */
function knownNames(ctx: CliContext, buses: readonly Bus[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const { store } of buses) {
    const listed = store.listRecords();
    if (listed.isOk()) for (const { record } of listed.value.records) names.set(record.id, record.name ?? record.label);
  }
  for (const s of openMailReader(ctx).list()) if (s.name !== undefined) names.set(s.address, s.name);
  return names;
}

function lineOf(ctx: CliContext, event: FollowEvent, names: ReadonlyMap<string, string>): string {
  const from = names.get(event.from);
  const to = names.get(event.to);
  if (ctx.json) {
    const { line, ...rest } = event;
    const time = new Date(ctx.term.now()).toISOString();
    return jsonLine({ time, ...rest, fromName: from ?? null, toName: to ?? null, firstLine: line });
  }
  const time = new Date(ctx.term.now()).toTimeString().slice(0, 8);
  const who = `${cell(from ?? event.from.slice(0, 8), 40)} → ${cell(to ?? event.to.slice(0, 8), 40)}`;
  const kind = `${event.half === "bus" ? "bus " : ""}${event.kind}${event.status === undefined ? "" : ` (${event.status})`}`;
  const state = event.event === "sent" ? (event.half === "bus" ? "sent" : "queued") : event.event;
  return `${time}  ${kind.padEnd(14)}  ${who}  ${state.padEnd(7)}  ${cell(event.line, 100)}\n`;
}
