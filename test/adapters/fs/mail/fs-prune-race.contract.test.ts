// Pruning against sends at the exact moments they can meet, on node fs and on memfs: mail a send
// reported delivered is never removed with the folder it reached.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFsMailStore } from "../../../../src/adapters/fs/mail/fs-mail-store.js";
import type { FsLike } from "../../../../src/adapters/fs/shared/fs-like.js";
import { envelopeFileName } from "../../../../src/domain/mail/envelope.js";
import type { MailStore } from "../../../../src/ports/mail/mail-store.js";
import { alice, type Backend, backends, bob, envelope, sentAtMs } from "../backends.js";

/** The backend's fs, with a hook run once right after the prune moves a folder to its tombstone. */
function withHookAfterTombstone(fs: FsLike, hook: { run: (() => void) | undefined }): FsLike {
  return new Proxy(fs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key !== "renameSync" || typeof value !== "function") return value;
      return (from: string, to: string) => {
        (value as FsLike["renameSync"]).call(target, from, to);
        if (!to.includes("/.pruning-")) return;
        const run = hook.run;
        hook.run = undefined;
        run?.();
      };
    },
  });
}

describe.each(backends)("prune racing a send, on $name", ({ make }) => {
  let b: Backend;
  let store: MailStore;
  let sender: MailStore;
  const hook: { run: (() => void) | undefined } = { run: undefined };
  const newNames = () => (b.raw.exists(`${b.root}/${bob}/new`) ? b.raw.list(`${b.root}/${bob}/new`) : []);

  beforeEach(() => {
    b = make();
    hook.run = undefined;
    store = createFsMailStore({ fs: withHookAfterTombstone(b.fs, hook), root: b.root, uid: b.uid });
    sender = createFsMailStore({ fs: b.fs, root: b.root, uid: b.uid });
    store.openRoot()._unsafeUnwrap();
    store.openBox(bob)._unsafeUnwrap();
  });
  afterEach(() => b.cleanup());

  it("keeps a folder that mail reached after the listing that found it empty", () => {
    expect(store.listBoxes()._unsafeUnwrap()).toMatchObject([{ address: bob, waiting: 0 }]);
    sender.deliver(envelope("late", { from: alice, to: bob }), sentAtMs, { durable: true })._unsafeUnwrap();
    expect(store.removeBox(bob, undefined)._unsafeUnwrap()).toBe(false);
    expect(newNames()).toEqual([envelopeFileName(sentAtMs, "late")]);
    expect(b.raw.list(b.root).filter((name) => name.startsWith("."))).toEqual([]);
  });

  it("removes an empty folder; a send that lands while it sits in its tombstone makes the folder anew and stays", () => {
    hook.run = () => {
      sender.deliver(envelope("during", { from: alice, to: bob }), sentAtMs, { durable: true })._unsafeUnwrap();
    };
    expect(store.removeBox(bob, undefined)._unsafeUnwrap()).toBe(true);
    expect(newNames()).toEqual([envelopeFileName(sentAtMs, "during")]);
  });

  it("fails a send whose rename comes after the folder left its place: it reports nothing sent, and nothing is lost", () => {
    const name = envelopeFileName(sentAtMs, "racing");
    // A sender that created its temp file in the folder before the prune moved it.
    b.raw.write(`${b.root}/${bob}/tmp/${name}`, "{}");
    let renamed: unknown;
    hook.run = () => {
      try {
        b.fs.renameSync(`${b.root}/${bob}/tmp/${name}`, `${b.root}/${bob}/new/${name}`);
        renamed = "renamed";
      } catch (e) {
        renamed = (e as NodeJS.ErrnoException).code;
      }
    };
    expect(store.removeBox(bob, undefined)._unsafeUnwrap()).toBe(true);
    expect(renamed).toBe("ENOENT");
    expect(b.raw.exists(`${b.root}/${bob}`)).toBe(false);
  });

  it("settles a tombstone a crashed prune left: its mail goes back to the address, or into the folder made anew", () => {
    sender.deliver(envelope("kept", { from: alice, to: bob }), sentAtMs, { durable: true })._unsafeUnwrap();
    b.raw.rename(`${b.root}/${bob}`, `${b.root}/.pruning-${bob}`);
    expect(store.removeBox(bob, undefined)._unsafeUnwrap()).toBe(false);
    expect(newNames()).toEqual([envelopeFileName(sentAtMs, "kept")]);
    // Again, but a sender made the folder anew in the meantime: the two inboxes are merged.
    b.raw.rename(`${b.root}/${bob}`, `${b.root}/.pruning-${bob}`);
    sender.deliver(envelope("new", { from: alice, to: bob }), sentAtMs + 1, { durable: true })._unsafeUnwrap();
    expect(store.removeBox(bob, undefined)._unsafeUnwrap()).toBe(false);
    expect(newNames()).toEqual([envelopeFileName(sentAtMs, "kept"), envelopeFileName(sentAtMs + 1, "new")]);
  });
  it("keeps a folder whose owner record is not the one judged gone: a session took its inbox meanwhile", () => {
    sender.claimOwner(bob, "t1", "stale owner\n")._unsafeUnwrap();
    const ownerNow = () => b.raw.read(`${b.root}/${bob}/owner.json`);
    // Judged gone while it held "stale owner"; a new start replaced it before the move.
    sender.replaceOwner(bob, "stale owner\n", "t2", "new owner\n")._unsafeUnwrap();
    expect(store.removeBox(bob, "stale owner\n")._unsafeUnwrap()).toBe(false);
    expect(ownerNow()).toBe("new owner\n");
    // Judged with the record it holds: removed.
    expect(store.removeBox(bob, "new owner\n")._unsafeUnwrap()).toBe(true);
    expect(b.raw.exists(`${b.root}/${bob}`)).toBe(false);
  });

  it("keeps a folder an owner record reached after a look that found none", () => {
    hook.run = () => b.raw.write(`${b.root}/.pruning-${bob}/owner.json`, "starting\n");
    expect(store.removeBox(bob, undefined)._unsafeUnwrap()).toBe(false);
    expect(b.raw.read(`${b.root}/${bob}/owner.json`)).toBe("starting\n");
  });

  it("puts back a tombstone a crashed prune left with an owner record in it (the next prune judges it)", () => {
    sender.claimOwner(bob, "t1", "someone\n")._unsafeUnwrap();
    b.raw.rename(`${b.root}/${bob}`, `${b.root}/.pruning-${bob}`);
    expect(
      store
        .listBoxes()
        ._unsafeUnwrap()
        .map((box) => box.address),
    ).toEqual([bob]);
    expect(store.removeBox(bob, "someone\n")._unsafeUnwrap()).toBe(true);
  });
});
