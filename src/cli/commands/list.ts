// `switchboard list`: who runs on this machine (or in this repository), what each does, whom it waits
// on, and the unread mail of both halves.
import { idShownCharsMin } from "../../domain/bus/limits.js";
import { nameWithLabel } from "../../domain/shared/text/same-label.js";
import { uniquePrefixes } from "../../domain/shared/unique-prefix.js";
import type { Command } from "../command.js";
import { exitCodes } from "../exit-codes.js";
import { cell, homePath, json, table } from "../format.js";
import { type RosterRow, readRoster } from "../roster.js";

export const list: Command = {
  words: ["list"],
  summary: "the running sessions: names, state, waits, unread mail",
  args: "",
  description: [
    "Lists every running Pi session on this machine: its name (or the shortest unique start of its id),",
    "its bus label where that differs, full id, working folder, idle or busy, whom it waits on, and its",
    "unread mail and bus messages. --repo keeps the sessions of the current folder's repository and adds",
    "their listening modes, claims and the handoff offers that stand.",
  ].join("\n"),
  examples: ["switchboard list", "switchboard list --repo --json"],
  options: { repo: { type: "boolean", help: "only this repository's sessions, with claims and listening modes" } },
  positionals: { min: 0, max: 0 },
  run({ values }, ctx) {
    const repo = values.repo === true;
    const roster = readRoster(ctx, repo);
    if (typeof roster === "string") return ctx.fail(exitCodes.error, roster);
    if (ctx.json) {
      ctx.term.out(
        json(
          roster.repo === undefined
            ? { sessions: roster.rows.map(jsonRow) }
            : { sessions: roster.rows.map(jsonRow), ...roster.repo },
        ),
      );
      return exitCodes.ok;
    }
    if (roster.rows.length === 0) {
      ctx.term.out(repo ? "No session runs in this repository.\n" : "No session runs on this machine.\n");
      return exitCodes.ok;
    }
    const names = namesOf(roster.rows);
    const header = ["NAME", "ID", "STATE", "WAITS ON", "UNREAD", ...(repo ? ["LISTENING", "CLAIMS"] : []), "CWD"];
    const rows = roster.rows.map((r) => [
      names.get(r.id)!,
      r.id,
      r.state === "unknown" ? "-" : r.state,
      r.waitingOn === undefined ? "" : (names.get(r.waitingOn) ?? r.waitingOn.slice(0, idShownCharsMin)),
      unreadOf(r),
      ...(repo ? [r.bus?.listening ?? "not on the bus", r.bus === undefined ? "" : claimsOf(r.bus.claims)] : []),
      cell(homePath(r.cwd, ctx.term.home), 200),
    ]);
    ctx.term.out(
      table(header, rows, {
        color: ctx.term.color,
        styleOf: (row, column) => (column === 2 && roster.rows[row]!.state === "busy" ? "yellow" : undefined),
      }),
    );
    for (const offer of roster.repo?.offers ?? [])
      ctx.term.out(`Offer: ${cell(offer.from.label)} hands ${cell(offer.to.label)} ${claimsOf(offer.keys)}\n`);
    return exitCodes.ok;
  },
};

/** Each row's name as people read it: Pi's name (with the bus label where it differs), else the
 * label, else the shortest start of its id no other row shares. */
function namesOf(rows: readonly RosterRow[]): Map<string, string> {
  const prefixes = uniquePrefixes(
    rows.map((r) => r.id),
    idShownCharsMin,
  );
  const clean = (text: string) => cell(text, 60);
  return new Map(
    rows.map((r) => {
      if (r.name !== undefined) return [r.id, nameWithLabel(r.name, r.label, clean)];
      return [r.id, r.label !== undefined ? clean(r.label) : prefixes.get(r.id)!];
    }),
  );
}

function unreadOf(r: RosterRow): string {
  const parts = [
    r.unreadMail === undefined || r.unreadMail === 0 ? "" : `${r.unreadMail} mail`,
    r.unreadBus === undefined || r.unreadBus === 0 ? "" : `${r.unreadBus} bus`,
  ].filter((p) => p !== "");
  return parts.join(", ");
}

function claimsOf(keys: readonly string[]): string {
  if (keys.length === 0) return "";
  const shown = keys.slice(0, 3).map((k) => cell(k, 80));
  return keys.length > 3 ? `${shown.join(", ")} +${keys.length - 3}` : shown.join(", ");
}

/** A row for scripts: every key present, null where the text shows nothing. */
const jsonRow = (r: RosterRow) => ({
  ...r,
  name: r.name ?? null,
  label: r.label ?? null,
  waitingOn: r.waitingOn ?? null,
  unreadMail: r.unreadMail ?? null,
  unreadBus: r.unreadBus ?? null,
  bus: r.bus ?? null,
});
