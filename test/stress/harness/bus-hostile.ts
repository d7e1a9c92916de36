// Hostile entries for a bus folder, drawn from a seed: what any process of the same user can put in
// sessions/, inbox/ and claims/ — bad bytes and JSON, wrong types, oversized files, links in and out
// of the bus folder, FIFOs, folders where files belong, dot-files, names that do not decode, and
// well-formed files whose peer-written fields carry control, bidi and zero-width characters. Each
// entry says what a live session must do with it. Link targets are made when an entry is drawn, so
// the folders holding them can be sealed before any entry is placed. The makers of each area are in
// bus-hostile-{sessions,inbox,claims}.ts; drawRound mixes them.
import * as fs from "node:fs";
import { join } from "node:path";
import { forgedLines, unsafeChars } from "../hostile-text.js";
import { deadPid, makeFifos, mkdir, neverMarker } from "../hostile-world.js";
import type { SeededRandom } from "./seeded-random.js";

export type Area = "sessions" | "inbox" | "other-inbox" | "claims";

/** What the live session must do with an entry. */
export type Expect =
  /** sessions/: counted in `unreadableRecords`, left on disk. */
  | "unreadable-record"
  /** sessions/: a readable record of a live process (listed active), of a dead one (listed gone). */
  | "active"
  | "gone"
  /** sessions/: a readable record of an ended process past the session TTL: pruned. */
  | "expired"
  /** inbox/<self>/: returned once as a row, then consumed. */
  | "row"
  /** inbox/<self>/: a regular file named as unreadable when a read walks past it, never returned,
   * left on disk (links, FIFOs and folders there are no mail at all: "left"). */
  | "unreadable-mail"
  /** Past the message TTL (mtime): removed by the prune of a status, never returned; a link goes, its target stays. */
  | "expires"
  /** claims/: a claim no live session holds: reaped by the prune. */
  | "reaped"
  /** claims/: held by a live hostile session: listed under it, kept. */
  | "held"
  /** Anywhere: never listed, counted, returned or removed (dot-files, names that do not decode, links
   * and FIFOs and folders where the bus keeps files, strangers in inbox/). */
  | "left";

export interface HostileEntry {
  area: Area;
  /** Absolute path, a Buffer when the name is not UTF-8. */
  path: string | Buffer;
  /** The file name as a listing shows it (for names the engine reports). */
  name: string;
  kind: string;
  expect: Expect;
  /** For a row: the message it holds; for an active/gone record: its id and label. */
  message?: { id: string; text: string; fromLabel: string; kind: string };
  record?: { id: string; label: string };
  /** For a claim held by a live hostile session: its key and owner. */
  claim?: { key: string; owner: string };
  place(): void;
}

export interface HostileBus {
  bus: string;
  /** Outside the bus folder: never read nor changed. */
  trap: string;
  /** Inside the bus folder but in no folder the bus reads: never read nor changed either. */
  inside: string;
  self: string;
  /** A pid that runs for the whole test (this process): a record naming it without a start token is alive. */
  livePid: number;
}

export const range = (r: SeededRandom, n: number) => Array.from({ length: n }, () => r.int(0, 255));
export const pick = <T>(r: SeededRandom, items: readonly T[]): T => items[r.int(0, items.length - 1)] as T;

/** Text a hostile peer writes: unsafe characters, forged lines and words, never empty. */
export function hostileText(r: SeededRandom, partsMax = 6): string {
  const parts: string[] = ["h"];
  for (let i = r.int(1, partsMax); i > 0; i--) {
    const which = r.int(0, 2);
    parts.push(which === 0 ? pick(r, unsafeChars) : which === 1 ? pick(r, forgedLines) : `w${r.int(0, 999)}`);
  }
  return parts.join("");
}

export function recordJson(id: string, fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id,
    label: "hostile",
    pid: deadPid,
    joinToken: `t-${id}`,
    cwd: "/nowhere",
    root: "/nowhere",
    armed: true,
    wake: false,
    joinedAt: "2026-01-01T00:00:00.000Z",
    ...fields,
  });
}

export function messageJson(id: string, to: string, fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id,
    from: "hostile-peer",
    fromLabel: "hostile",
    to,
    kind: "message",
    text: "hostile text",
    paths: [],
    sentAt: "2026-01-01T00:00:00.000Z",
    ...fields,
  });
}

export const messageName = (id: string) => `${String(Date.now()).padStart(15, "0")}-${id}.json`;
export const claimName = (key: string, owner: string, token: string) =>
  `${[...Buffer.from(key)]
    .map((b) =>
      /[A-Za-z0-9._-]/.test(String.fromCharCode(b)) && b < 128
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, "0")}`,
    )
    .join("")
    .replace(/^\./, "%2E")}~${owner}~${token}`;

/** A time past both TTLs (session and message), in seconds for utimes. */
export const agedS = (Date.now() - 25 * 60 * 60_000) / 1000;
export const write = (path: string | Buffer, content: string | Uint8Array) =>
  fs.writeFileSync(path, content, { mode: 0o600 });
/** A file past every size bound without taking the disk: sparse. */
export function sparse(path: string, bytes: number): void {
  write(path, "{");
  fs.truncateSync(path, bytes);
}
/** A path whose last name is not UTF-8: node lists it under another (lossy) name. */
export const badUtf8 = (dir: string, tail: string) =>
  Buffer.concat([Buffer.from(`${dir}/`), Buffer.from([0x62, 0xff, 0xfe, 0x80]), Buffer.from(tail)]);

/** Link targets: outside (trap) and inside the bus folder; each holds the marker no result may show. */
export function prepareTargets(h: HostileBus, fifos: string[]): void {
  mkdir(h.trap);
  mkdir(h.inside);
  mkdir(join(h.trap, "dir"));
  write(join(h.trap, "note.txt"), `${neverMarker}\n`);
  write(join(h.trap, "dir", "note.txt"), `${neverMarker}\n`);
  fifos.push(join(h.trap, "fifo"));
  makeFifos(fifos);
}

/** One linked file per entry (its name must match what it holds): made in `dir` before the seal. */
export function target(dir: string, name: string, content: string): string {
  const path = join(dir, name);
  write(path, content);
  return path;
}

/** Where a new entry goes, and the seed that shapes it. */
export interface Spot {
  h: HostileBus;
  r: SeededRandom;
  dir: string;
  /** A fresh id, and the entry's name and path as the area names a file of that id. */
  id: string;
  name: string;
  path: string;
}

/** What one kind of entry makes: what must become of it, how it is put on disk, and (for a maker
 * that names it otherwise) its own name and path, and what it is checked by. */
export type Made = Pick<HostileEntry, "expect" | "place"> & Partial<Omit<HostileEntry, "expect" | "place" | "area">>;
export type Maker = (spot: Spot) => Made;

export function makeEntry(area: Area, kind: string, spot: Spot, maker: Maker): HostileEntry {
  return { area, kind, path: spot.path, name: spot.name, ...maker(spot) };
}

/** Whether an entry is on disk (never following a link, never opening a FIFO). */
export function present(entry: HostileEntry): boolean {
  try {
    fs.lstatSync(entry.path);
    return true;
  } catch {
    return false;
  }
}
