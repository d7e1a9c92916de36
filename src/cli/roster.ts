// Every running session on the machine as one row: its mail record and its bus record joined by id,
// with unread mail of both halves. Read from the files alone; nothing is joined, claimed or pruned.

import type { SessionRow } from "../domain/bus/engine/index.js";
import type { Address } from "../domain/mail/address.js";
import type { ListedSession } from "../domain/mail/engine/index.js";
import { folderEntriesReadMax } from "../domain/mail/limits.js";
import { compareText } from "../domain/shared/text/compare.js";
import { busKeys, createNodeBusReader } from "../wiring/node-bus.js";
import { createNodeMailStore } from "../wiring/node-mailbox.js";
import { type BusView, lookAtBus, openRepoBus, readerHost } from "./bus-side.js";
import type { CliContext } from "./command.js";
import { openMailReader } from "./mail-side.js";

export interface RosterRow {
  id: string;
  /** Pi's name (the mail record's), else the bus record's. */
  name: string | undefined;
  /** Its bus label, when it is on a bus. */
  label: string | undefined;
  cwd: string;
  state: "idle" | "busy" | "stopped" | "unknown";
  waitingOn: string | undefined;
  mailMode: "accept" | "hold" | "refuse";
  /** Files in its mail inbox's new/ (undefined: it has no mailbox running). */
  unreadMail: number | undefined;
  unreadBus: number | undefined;
  /** The bus it is on (the folder key), with its listening mode and claims. */
  bus: { key: string; listening: SessionRow["listening"]; claims: string[] } | undefined;
}

function mailRows(ctx: CliContext): { listed: ListedSession[]; unread: (address: Address) => number | undefined } {
  const listed = openMailReader(ctx).list();
  const store = createNodeMailStore(ctx.mailRoot);
  const unread = (address: Address) => {
    const names = store.listNew(address);
    return names.isOk() ? Math.min(names.value.names.length, folderEntriesReadMax) : undefined;
  };
  return { listed, unread };
}

interface Roster {
  rows: RosterRow[];
  /** With `repo`: the repository's top, and the handoff offers that stand on its bus. */
  repo?: { root: string; offers: BusView["offers"] };
}

/** The machine's sessions, or (with `repo`) those of the repository of the current folder. */
export function readRoster(ctx: CliContext, repo: boolean): Roster | string {
  const mail = mailRows(ctx);
  const views: Array<{ key: string; view: BusView }> = [];
  let root: string | undefined;
  if (repo) {
    const bus = openRepoBus(ctx, undefined, readerHost);
    if (typeof bus === "string") return bus;
    root = bus.place.root;
    const view = lookAtBus(bus);
    if (view.isOk()) views.push({ key: bus.place.key, view: view.value });
  } else {
    for (const key of busKeys(ctx.agentDir)) {
      const view = createNodeBusReader(ctx.agentDir, key, readerHost).snapshot();
      if (view.isOk()) views.push({ key, view: view.value });
    }
  }
  const onBus = new Map<string, { key: string; row: SessionRow }>();
  for (const { key, view } of views)
    for (const row of view.sessions) if (row.state === "active") onBus.set(row.id, { key, row });
  const rows: RosterRow[] = [];
  for (const s of mail.listed) {
    const bus = onBus.get(s.address);
    if (root !== undefined && bus === undefined && !inside(s.cwd, root)) continue;
    rows.push(rowOf(s, bus, mail.unread(s.address)));
  }
  for (const [id, bus] of onBus)
    if (!mail.listed.some((s) => s.address === id)) rows.push(rowOf(undefined, bus, undefined));
  rows.sort((a, b) => compareText(a.name ?? a.label ?? a.id, b.name ?? b.label ?? b.id) || compareText(a.id, b.id));
  if (root === undefined) return { rows };
  return { rows, repo: { root, offers: views[0]?.view.offers ?? [] } };
}

const inside = (path: string, root: string) => path === root || path.startsWith(`${root}/`);

function rowOf(
  s: ListedSession | undefined,
  bus: { key: string; row: SessionRow } | undefined,
  unreadMail: number | undefined,
): RosterRow {
  const state = s === undefined ? (bus?.row.stopped ? "stopped" : "unknown") : s.stopped ? "stopped" : s.state;
  return {
    id: s?.address ?? bus!.row.id,
    name: s?.name ?? bus?.row.name,
    label: bus?.row.label ?? s?.label,
    cwd: s?.cwd ?? bus!.row.cwd,
    state,
    waitingOn: s === undefined || s.waitingOn === "" ? undefined : s.waitingOn,
    mailMode: s?.mailMode ?? "accept",
    unreadMail,
    unreadBus: bus?.row.unread,
    bus: bus === undefined ? undefined : { key: bus.key, listening: bus.row.listening, claims: bus.row.claims },
  };
}
