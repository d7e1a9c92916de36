// Hostile entries of sessions/: records that do not read (counted in `unreadableRecords`, left on
// disk), files the bus must not look at (dot-files, names node cannot decode), and records that do
// read, with hostile labels, of live, dead and silent processes.
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import { join } from "node:path";
import { deadPid, makeFifos, mkdir, neverMarker } from "../hostile-world.js";
import {
  agedS,
  badUtf8,
  type HostileBus,
  type HostileEntry,
  hostileText,
  type Maker,
  makeEntry,
  pick,
  range,
  recordJson,
  type Spot,
  sparse,
  target,
  write,
} from "./bus-hostile.js";
import type { SeededRandom } from "./seeded-random.js";

/** A record that would show the marker if it were ever read. */
const marked = (s: Spot) => recordJson(s.id, { pid: s.h.livePid, label: neverMarker });
const unreadable =
  (place: (s: Spot) => void): Maker =>
  (s) => ({ expect: "unreadable-record", place: () => place(s) });
/** Another name in sessions/ for the same content. */
const renamed = (s: Spot, name: string) => ({ name, path: join(s.dir, name) });

const makers: Record<string, Maker> = {
  bytes: unreadable((s) => write(s.path, Uint8Array.from([0xff, ...range(s.r, s.r.int(0, 64))]))),
  "not-json": unreadable((s) => write(s.path, `{"id":"${s.id}","label":"${hostileText(s.r)}`)),
  "wrong-type": unreadable((s) => {
    const fields = pick(s.r, [{ pid: "1" }, { label: 5 }, { armed: "yes" }, { cwd: "relative" }, { joinToken: "a b" }]);
    write(s.path, recordJson(s.id, fields));
  }),
  "name-mismatch": unreadable((s) => write(s.path, recordJson(randomUUID(), { pid: s.h.livePid }))),
  oversized: unreadable((s) => sparse(s.path, 70_000 + s.r.int(0, 1_000_000))),
  "link-out": (s) => {
    const to = target(s.h.trap, `record-${s.id}.json`, marked(s));
    return { expect: "unreadable-record", place: () => fs.symlinkSync(to, s.path) };
  },
  "link-in": (s) => {
    target(s.h.inside, `record-${s.id}.json`, marked(s));
    return { expect: "unreadable-record", place: () => fs.symlinkSync(`../inside/record-${s.id}.json`, s.path) };
  },
  "link-dangling": unreadable((s) => fs.symlinkSync(join(s.h.trap, "missing"), s.path)),
  fifo: unreadable((s) => makeFifos([s.path])),
  folder: unreadable((s) => {
    mkdir(s.path);
    write(join(s.path, s.name), marked(s));
  }),
  "bad-name": (s) => {
    const at = renamed(s, pick(s.r, [`a b-${s.id}.json`, `x\u202e${s.id}.json`, `noext-${s.id}`]));
    return { expect: "unreadable-record", ...at, place: () => write(at.path, marked(s)) };
  },
  dot: (s) => {
    const at = renamed(s, `.${s.name}`);
    return { expect: "left", ...at, place: () => write(at.path, marked(s)) };
  },
  "bad-utf8": (s) => {
    const path = badUtf8(s.dir, ".json");
    return { expect: "left", path, name: path.toString(), place: () => write(path, marked(s)) };
  },
  active: (s) => {
    const label = hostileText(s.r);
    const place = () => write(s.path, recordJson(s.id, { label, pid: s.h.livePid }));
    return { expect: "active", record: { id: s.id, label }, place };
  },
  gone: (s) => {
    const label = hostileText(s.r);
    return {
      expect: "gone",
      record: { id: s.id, label },
      // A start token no process has: gone even if the dead pid is reused meanwhile.
      place: () => write(s.path, recordJson(s.id, { label, pid: deadPid, started: "1" })),
    };
  },
  // An ended process whose heartbeat is past the session TTL: pruned.
  expired: (s) => ({
    expect: "expired",
    place: () => {
      write(s.path, recordJson(s.id, { pid: deadPid, started: "1" }));
      fs.utimesSync(s.path, agedS, agedS);
    },
  }),
  // A live process whose heartbeat stopped past the session TTL (hung): held, label and claims,
  // until a reader has watched it stay silent that long; one read after it appeared has not.
  silent: (s) => {
    const label = hostileText(s.r);
    return {
      expect: "active",
      record: { id: s.id, label },
      place: () => {
        write(s.path, recordJson(s.id, { label, pid: s.h.livePid }));
        fs.utimesSync(s.path, agedS, agedS);
      },
    };
  },
};

export const sessionKinds = Object.keys(makers);

export function sessionEntry(h: HostileBus, r: SeededRandom, kind: string): HostileEntry {
  const dir = join(h.bus, "sessions");
  const id = randomUUID();
  const maker = makers[kind];
  if (maker === undefined) throw new Error(`no session entry ${kind}`);
  return makeEntry("sessions", kind, { h, r, dir, id, name: `${id}.json`, path: join(dir, `${id}.json`) }, maker);
}
