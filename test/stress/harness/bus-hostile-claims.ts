// Hostile entries of claims/: orphans (reaped), claims of live hostile sessions (held and listed),
// and names that are no claim's, links, FIFOs and folders (left alone).
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import { join } from "node:path";
import { makeFifos, mkdir } from "../hostile-world.js";
import {
  badUtf8,
  claimName,
  type HostileBus,
  type HostileEntry,
  hostileText,
  type Maker,
  makeEntry,
  pick,
  range,
  type Spot,
  sparse,
  write,
} from "./bus-hostile.js";
import type { SeededRandom } from "./seeded-random.js";

/** A repository-relative key that carries hostile characters: no empty, `.` or `..` segment, no NUL.
 * Short: each character may take 9 bytes of the name (%XX%XX%XX), and a name is at most 255. */
function hostileKey(r: SeededRandom): string {
  return `hostile/${hostileText(r, 2).replace(/[/\0]/g, "_").slice(0, 8)}-${r.int(0, 1e9)}`;
}

const orphanKey = (r: SeededRandom) =>
  pick(r, ["src", "src/api", "src/api/routes.ts", "docs", `src/\u202e${r.int(0, 99)}`]);
const named = (s: Spot, name: string) => ({ name, path: join(s.dir, name) });
const left =
  (place: (s: Spot) => void): Maker =>
  (s) => ({ expect: "left", place: () => place(s) });

function makers(holders: readonly string[]): Record<string, Maker> {
  return {
    orphan: (s) => ({ expect: "reaped", place: () => write(s.path, Uint8Array.from(range(s.r, s.r.int(0, 32)))) }),
    "orphan-big": (s) => ({ expect: "reaped", place: () => sparse(s.path, 10_000_000) }),
    // A live session's name under a token it no longer has: an orphan too.
    "orphan-of-live": (s) => {
      const at = named(s, claimName(orphanKey(s.r), pick(s.r, holders), `stale-${s.id}`));
      return { expect: "reaped", ...at, place: () => write(at.path, "{}") };
    },
    held: (s) => {
      const owner = pick(s.r, holders);
      const key = hostileKey(s.r);
      const at = named(s, claimName(key, owner, `t-${owner}`));
      return { expect: "held", claim: { key, owner }, ...at, place: () => write(at.path, "{}") };
    },
    undecodable: (s) => {
      const at = named(
        s,
        pick(s.r, [
          `%ZZ~${s.id}~t`,
          `src~${s.id}`,
          `a~b~c~${s.id}`,
          `src%2fapi~${s.id}~t`,
          `src%2F~${s.id}~t`,
          `sr%63~${s.id}~t`,
          // A raw space is outside the encoding: never a claim's name, whatever follows.
          `bad ${hostileText(s.r, 2).replace(/[/\0]/g, "_").slice(0, 40)}~${s.id}~t`,
        ]),
      );
      return { expect: "left", ...at, place: () => write(at.path, "{}") };
    },
    dot: (s) => {
      const at = named(s, `.${s.name}`);
      return { expect: "left", ...at, place: () => write(at.path, "{}") };
    },
    "bad-utf8": (s) => {
      const path = badUtf8(s.dir, `~${s.id}~t`);
      return { expect: "left", path, name: path.toString(), place: () => write(path, "{}") };
    },
    "link-out": left((s) => fs.symlinkSync(join(s.h.trap, "note.txt"), s.path)),
    "link-in": left((s) => fs.symlinkSync(`../sessions/${s.h.self}.json`, s.path)),
    fifo: left((s) => makeFifos([s.path])),
    folder: left((s) => {
      mkdir(s.path);
      write(join(s.path, "x"), "{}");
    }),
  };
}

/** `held` twice: claims of live sessions are what a status lists. */
export const claimKinds = [...Object.keys(makers([])), "held"];

export function claimEntry(h: HostileBus, r: SeededRandom, kind: string, holders: readonly string[]): HostileEntry {
  const dir = join(h.bus, "claims");
  const id = randomUUID();
  const maker = makers(holders)[kind];
  if (maker === undefined) throw new Error(`no claim entry ${kind}`);
  const name = claimName(orphanKey(r), id, `t-${id}`);
  return makeEntry("claims", kind, { h, r, dir, id, name, path: join(dir, name) }, maker);
}
