// findSentCopies on node fs (a temp folder) and memfs: the copies a reply names are found by the id
// inside each file, in one listing of sent/ however many copies it holds, and no decoy (wrong id,
// a folder, a link, a too-big file, another sender's envelope, a FIFO on node fs) stands in for a
// copy, blocks the lookup or hides the real copy.
import { execFileSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFsMailStore } from "../../../../src/adapters/fs/mail/fs-mail-store.js";
import type { FsLike } from "../../../../src/adapters/fs/shared/fs-like.js";
import { encodeEnvelope, envelopeFileName } from "../../../../src/domain/mail/envelope.js";
import {
  envelopeFileBytesMax,
  folderEntriesMax,
  inReplyToMax,
  sentCandidatesPerIdMax,
} from "../../../../src/domain/mail/limits.js";
import type { MailStore } from "../../../../src/ports/mail/mail-store.js";
import { alice, type Backend, backends, carol, envelope, sentAtMs } from "../backends.js";

/** Counts the listings of and the opens in any folder named sent/, to pin how much a lookup costs. */
function counting(fs: FsLike): { fs: FsLike; listings: () => number; opens: () => number } {
  let listings = 0;
  let opens = 0;
  const inSent = (path: unknown) => typeof path === "string" && /\/sent(\/|$)/.test(path);
  const wrapped = new Proxy(fs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if ((key === "opendirSync" || key === "readdirSync") && inSent(args[0])) listings++;
        if (key === "openSync" && inSent(args[0])) opens++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { fs: wrapped, listings: () => listings, opens: () => opens };
}

describe.each(backends)("findSentCopies on $name", ({ make }) => {
  let b: Backend;
  let store: MailStore;
  let count: ReturnType<typeof counting>;
  const sent = () => `${b.root}/${alice}/sent`;
  const plantCopy = (id: string, atMs: number, from = alice) => {
    const path = `${sent()}/${envelopeFileName(atMs, id)}`;
    const mail = envelope(id, { from, body: `the request ${id}` });
    b.raw.write(path, encodeEnvelope(mail));
    return { path, envelope: mail };
  };

  beforeEach(() => {
    b = make();
    count = counting(b.fs);
    store = createFsMailStore({ fs: count.fs, root: b.root, uid: b.uid });
    expect(store.openRoot().isOk()).toBe(true);
    expect(store.openBox(alice).isOk()).toBe(true);
  });
  afterEach(() => b.cleanup());

  it(`finds ${inReplyToMax} copies among ${folderEntriesMax} others in one listing, those past the listing bound included`, () => {
    // The fillers sort first, so every asked copy lies past a listing cut at folderEntriesMax names.
    const filler = encodeEnvelope(envelope("filler"));
    for (let i = 0; i < folderEntriesMax; i++) {
      b.raw.write(`${sent()}/${envelopeFileName(sentAtMs - folderEntriesMax + i, `filler-${i}`)}`, filler);
    }
    const ids = Array.from({ length: inReplyToMax }, (_, i) => `asked-${i}`);
    const planted = ids.map((id, i) => plantCopy(id, sentAtMs + i));
    const before = count.listings();

    const found = store.findSentCopies(alice, [...ids, "never-sent"])._unsafeUnwrap();
    expect(count.listings() - before).toBe(1);
    expect(found).toEqual(new Map(ids.map((id, i) => [id, planted[i]])));
  });

  it("takes a copy only for the id and sender inside it: decoys named like it never stand in for it nor hide it", () => {
    const id = "019ad0e0-0000-7000-8000-00000000cafe";
    // Decoys sort before the real copy, so a first-name-wins lookup would take one of them.
    const decoy = (n: number) => `${sent()}/${String(n).padStart(15, "0")}-${id}.json`;
    b.raw.write(decoy(1), encodeEnvelope(envelope("someone-else", { body: "forged" })));
    b.raw.mkdir(decoy(2));
    b.raw.symlink(`${b.outside}/target.json`, decoy(3));
    b.raw.write(`${b.outside}/target.json`, encodeEnvelope(envelope(id, { body: "outside" })));
    b.raw.write(decoy(4), `${encodeEnvelope(envelope(id))}${" ".repeat(envelopeFileBytesMax)}`);
    b.raw.write(decoy(5), encodeEnvelope(envelope(id, { from: carol, body: "not ours" })));
    b.raw.write(decoy(6), "not json");
    b.raw.mkdir(`${sent()}/${id}.json`);
    const real = plantCopy(id, sentAtMs);

    expect(store.findSentCopies(alice, [id])._unsafeUnwrap()).toEqual(new Map([[id, real]]));
  });

  it("finds no copy for an id whose only candidates are decoys", () => {
    b.raw.write(`${sent()}/${envelopeFileName(sentAtMs, "m1")}`, encodeEnvelope(envelope("m2")));
    b.raw.mkdir(`${sent()}/m1.json`);
    plantCopy("m2", sentAtMs + 1);

    const found = store.findSentCopies(alice, ["m1", "m2"])._unsafeUnwrap();
    expect([...found.keys()]).toEqual(["m2"]);
  });

  it("tells apart ids that end the same way: each is found by the id inside its own file", () => {
    const short = plantCopy("b", sentAtMs);
    const long = plantCopy("a-b", sentAtMs);

    const found = store.findSentCopies(alice, ["b", "a-b"])._unsafeUnwrap();
    expect(found).toEqual(
      new Map([
        ["b", short],
        ["a-b", long],
      ]),
    );
  });

  it("never turns an id into a path: ids with slashes or dots find nothing and fail nothing", () => {
    // Written raw: ids are data, and the encoder only writes ids of the file-name alphabet.
    b.raw.write(`${b.root}/${alice}/x.json`, JSON.stringify(envelope("../x")));
    const found = store.findSentCopies(alice, ["../x", "a/b", "..", ""]);
    expect(found._unsafeUnwrap().size).toBe(0);
  });

  it(`opens at most ${sentCandidatesPerIdMax} candidates per id, however many decoys share its name`, () => {
    for (let n = 0; n < 3 * sentCandidatesPerIdMax; n++) {
      b.raw.write(`${sent()}/${String(n).padStart(15, "0")}-m1.json`, encodeEnvelope(envelope("m9")));
    }
    const before = count.opens();

    expect(store.findSentCopies(alice, ["m1"])._unsafeUnwrap().size).toBe(0);
    expect(count.opens() - before).toBe(sentCandidatesPerIdMax);
  });

  it("lists nothing for a reply that names no request, and finds nothing in a box with no sent/", () => {
    const before = count.listings();
    expect(store.findSentCopies(alice, [])._unsafeUnwrap().size).toBe(0);
    expect(count.listings()).toBe(before);
    b.raw.rmTree(sent());
    expect(store.findSentCopies(alice, ["m1"])._unsafeUnwrap().size).toBe(0);
    expect(store.findSentCopies(carol, ["m1"])._unsafeUnwrap().size).toBe(0);
  });

  it("refuses a sent/ that is a symlink, reading nothing through it", () => {
    b.raw.rmTree(sent());
    b.raw.write(`${b.outside}/${envelopeFileName(sentAtMs, "m1")}`, encodeEnvelope(envelope("m1")));
    b.raw.symlink(b.outside, sent());
    expect(store.findSentCopies(alice, ["m1"])._unsafeUnwrapErr()).toEqual({ kind: "not-a-folder", path: sent() });
  });
});

describe("findSentCopies, node fs only (memfs has no FIFOs)", () => {
  it("node fs only (memfs has no FIFOs): a FIFO named like the copy neither blocks the lookup nor hides the copy", () => {
    const b = backends[0]!.make();
    try {
      const store = createFsMailStore({ fs: b.fs, root: b.root, uid: b.uid });
      store.openRoot();
      store.openBox(alice);
      const folder = `${b.root}/${alice}/sent`;
      execFileSync("mkfifo", ["-m", "600", `${folder}/000000000000001-m1.json`]);
      const real = { path: `${folder}/${envelopeFileName(sentAtMs, "m1")}`, envelope: envelope("m1") };
      b.raw.write(real.path, encodeEnvelope(real.envelope));

      expect(store.findSentCopies(alice, ["m1"])._unsafeUnwrap()).toEqual(new Map([["m1", real]]));
    } finally {
      b.cleanup();
    }
  });
});
