// Hostile entries of the live session's inbox (mail that does not read: named and left; links,
// FIFOs and folders: no mail at all; readable mail with hostile fields: returned once; anything
// past the message TTL: pruned) and of inbox/ itself (other sessions' folders, links, strangers).
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import { join } from "node:path";
import { makeFifos, mkdir, neverMarker } from "../hostile-world.js";
import {
  agedS,
  badUtf8,
  type HostileBus,
  type HostileEntry,
  hostileText,
  type Maker,
  makeEntry,
  messageJson,
  messageName,
  pick,
  range,
  type Spot,
  sparse,
  target,
  write,
} from "./bus-hostile.js";
import type { SeededRandom } from "./seeded-random.js";

const busKinds = ["message", "event", "ask", "handoff"] as const;

/** A message to the session that would show the marker if it were ever read. */
const marked = (s: Spot) => messageJson(s.id, s.h.self, { text: neverMarker, fromLabel: neverMarker });
const unreadable =
  (place: (s: Spot) => void): Maker =>
  (s) => ({ expect: "unreadable-mail", place: () => place(s) });
const left =
  (place: (s: Spot) => void): Maker =>
  (s) => ({ expect: "left", place: () => place(s) });
const renamed = (s: Spot, name: string) => ({ name, path: join(s.dir, name) });

const makers: Record<string, Maker> = {
  bytes: unreadable((s) => write(s.path, Uint8Array.from([0xfe, ...range(s.r, s.r.int(0, 64))]))),
  "not-json": unreadable((s) => write(s.path, `{"id":"${s.id}","text":"${hostileText(s.r)}`)),
  "wrong-type": unreadable((s) => {
    const fields = pick(s.r, [{ text: 5 }, { kind: "weird" }, { paths: "src" }, { paths: ["../x"] }, { from: "a b" }]);
    write(s.path, messageJson(s.id, s.h.self, fields));
  }),
  "to-mismatch": unreadable((s) => write(s.path, messageJson(s.id, randomUUID(), { text: neverMarker }))),
  "id-mismatch": unreadable((s) => write(s.path, messageJson(randomUUID(), s.h.self, { text: neverMarker }))),
  oversized: unreadable((s) => sparse(s.path, 1_700_000 + s.r.int(0, 5_000_000))),
  "bad-name": (s) => {
    const at = renamed(s, pick(s.r, [`garbage-${s.id}`, `000000000000001-bad id ${s.id}.json`, `x\u200b${s.id}.json`]));
    return { expect: "unreadable-mail", ...at, place: () => write(at.path, marked(s)) };
  },
  // A listing's own types say these are no files: the bus neither reads nor counts them.
  "link-out": (s) => {
    const to = target(s.h.trap, `message-${s.id}.json`, marked(s));
    return { expect: "left", place: () => fs.symlinkSync(to, s.path) };
  },
  "link-in": (s) => {
    target(s.h.inside, `message-${s.id}.json`, marked(s));
    return { expect: "left", place: () => fs.symlinkSync(`../../inside/message-${s.id}.json`, s.path) };
  },
  "link-trap-fifo": left((s) => fs.symlinkSync(join(s.h.trap, "fifo"), s.path)),
  fifo: left((s) => makeFifos([s.path])),
  folder: left((s) => {
    mkdir(s.path);
    write(join(s.path, s.name), marked(s));
  }),
  dot: (s) => {
    const at = renamed(s, `.${s.name}`);
    return { expect: "left", ...at, place: () => write(at.path, marked(s)) };
  },
  "bad-utf8": (s) => {
    const path = badUtf8(s.dir, ".json");
    return { expect: "left", path, name: path.toString(), place: () => write(path, marked(s)) };
  },
  valid: (s) => {
    const long = s.r.int(0, 4) === 0;
    const text = long ? hostileText(s.r, 1).padEnd(3_000 + s.r.int(0, 900), "\u202e\u200bz") : hostileText(s.r);
    const message = { id: s.id, text, fromLabel: hostileText(s.r), kind: pick(s.r, busKinds) };
    const paths = s.r.int(0, 1) === 0 ? [] : [`src/\u202e${s.r.int(0, 99)}`, "docs/\u200bguide.md"];
    return { expect: "row", message, place: () => write(s.path, messageJson(s.id, s.h.self, { ...message, paths })) };
  },
  // Past the message TTL by its own mtime (a link's, not its target's): the prune of a status removes it.
  aged: (s) => {
    const { message: _unread, ...inner } = pick(
      s.r,
      agedKinds.map((kind) => makers[kind]!),
    )(s);
    return {
      ...inner,
      expect: "expires",
      place: () => {
        inner.place();
        fs.lutimesSync(inner.path ?? s.path, agedS, agedS);
      },
    };
  },
};

const agedKinds = ["bytes", "not-json", "link-out", "link-in", "fifo", "valid"];
/** `valid` twice: readable mail is a good share of what arrives. */
export const inboxKinds = [...Object.keys(makers), "valid"];

export function inboxEntry(h: HostileBus, r: SeededRandom, kind: string): HostileEntry {
  const dir = join(h.bus, "inbox", h.self);
  const id = randomUUID();
  const maker = makers[kind];
  if (maker === undefined) throw new Error(`no inbox entry ${kind}`);
  const name = messageName(id);
  const entry = makeEntry("inbox", kind, { h, r, dir, id, name, path: join(dir, name) }, maker);
  return {
    ...entry,
    place: () => {
      mkdir(dir);
      entry.place();
    },
  };
}

const otherMakers: Record<string, Maker> = {
  "link-out": left((s) => fs.symlinkSync(join(s.h.trap, "dir"), s.path)),
  file: left((s) => write(s.path, messageJson(randomUUID(), s.name))),
  fifo: left((s) => makeFifos([s.path])),
  stranger: (s) => {
    const at = renamed(s, pick(s.r, [`.hidden-${s.id}`, `not an id ${s.id}`]));
    const place = () => {
      mkdir(at.path);
      write(join(at.path, messageName(randomUUID())), "x");
    };
    return { expect: "left", ...at, place };
  },
  "fresh-folder": left((s) => {
    mkdir(s.path);
    write(join(s.path, messageName(randomUUID())), Uint8Array.from(range(s.r, 16)));
  }),
  // Every file past the TTL and no record naming it: the prune empties it and drops it.
  "aged-folder": (s) => ({
    expect: "expires",
    place: () => {
      mkdir(s.path);
      const files = [join(s.path, messageName(s.id)), join(s.path, `x-${s.id}`)];
      write(files[0]!, messageJson(s.id, s.name));
      fs.symlinkSync(join(s.h.trap, "note.txt"), files[1]!);
      for (const file of files) fs.lutimesSync(file, agedS, agedS);
    },
  }),
};

export const otherInboxKinds = Object.keys(otherMakers);

export function otherInboxEntry(h: HostileBus, r: SeededRandom, kind: string): HostileEntry {
  const dir = join(h.bus, "inbox");
  const id = randomUUID();
  const maker = otherMakers[kind];
  if (maker === undefined) throw new Error(`no other-inbox entry ${kind}`);
  const entry = makeEntry("other-inbox", kind, { h, r, dir, id, name: id, path: join(dir, id) }, maker);
  return {
    ...entry,
    place: () => {
      mkdir(dir);
      entry.place();
    },
  };
}
