import { afterEach, describe, expect, it, vi } from "vitest";
import type { FsLike } from "../../../../src/adapters/fs/shared/fs-like.js";
import { describeBusError } from "../../../../src/domain/bus/bus-errors.js";
import { messageTtlMs } from "../../../../src/domain/bus/limits.js";
import { acceptText } from "../../../../src/pi/bus/texts.js";
import { busRoot, createBusHarness, idOf } from "./harness.js";

afterEach(() => vi.useRealTimers());

function pair() {
  const h = createBusHarness();
  const lead = h.start("alice").engine;
  lead.join({ label: "lead" });
  const peer = h.start("bob").engine;
  peer.join({ label: "peer" });
  lead.claim(["src/api", "README.md"]);
  return { h, lead, peer };
}

const offers = (h: ReturnType<typeof createBusHarness>) =>
  h.vol.existsSync(`${busRoot}/offers`) ? (h.vol.readdirSync(`${busRoot}/offers`) as string[]) : [];
const ownersOf = (h: ReturnType<typeof createBusHarness>, key: string) =>
  h
    .claimFiles()
    .filter((name) => name.startsWith(key.replace("/", "%2F")))
    .map((name) => name.split("~")[1]);

/** A wrapFs whose renameSync goes through `rename` (given the real one). */
const onRename =
  (rename: (real: (from: string, to: string) => void, from: string, to: string) => void) => (fs: FsLike) =>
    new Proxy(fs, {
      get(target, prop, receiver) {
        if (prop !== "renameSync") return Reflect.get(target, prop, receiver);
        return (from: string, to: string) => rename((a, b) => target.renameSync(a, b), from, to);
      },
    });

function offer(lead: ReturnType<typeof pair>["lead"], paths = ["src/api", "README.md"]) {
  return lead.send({ to: "peer", kind: "handoff", text: "Take the API work.", paths })._unsafeUnwrap().messageId;
}

describe("a handoff's offer", () => {
  it("leaves the claims with the sender and names the offer in the recipient's inbox", () => {
    const { h, lead, peer } = pair();
    const id = offer(lead);
    expect(offers(h)).toEqual([`${id}.json`]);
    expect(ownersOf(h, "src/api")).toEqual([idOf.alice]);
    const row = peer.inbox(undefined)._unsafeUnwrap().rows[0];
    expect(row?.message.paths).toEqual(["src/api", "README.md"]);
  });

  it("is refused before anything is written when the sender does not hold every path", () => {
    const { h, lead } = pair();
    const before = h.inboxFiles("bob");
    const refused = lead
      .send({ to: "peer", kind: "handoff", text: "x", paths: ["src/api", "docs"] })
      ._unsafeUnwrapErr();
    expect(refused).toEqual({ kind: "handoff-unheld", keys: ["docs"] });
    expect(describeBusError(refused)).toMatch(/^Nothing sent: a handoff offers paths this session holds/);
    expect(h.inboxFiles("bob")).toEqual(before);
    expect(offers(h)).toEqual([]);
  });

  it("accepted, moves every claim to the recipient in one step per claim; the offer is gone", () => {
    const { h, lead, peer } = pair();
    const id = offer(lead);
    expect(peer.accept(id)._unsafeUnwrap()).toEqual({
      id,
      from: { id: idOf.alice, label: "lead" },
      taken: ["src/api", "README.md"],
      released: [],
      lost: [],
    });
    expect(ownersOf(h, "src/api")).toEqual([idOf.bob]);
    // README.md exists: its identity claim moved with it.
    expect(h.claimFiles().filter((name) => name.includes(idOf.alice))).toEqual([]);
    expect(offers(h)).toEqual([]);
    expect(lead.claim(["README.md"])._unsafeUnwrapErr().kind).toBe("claim-conflict");
    expect(peer.accept(id)._unsafeUnwrapErr()).toEqual({ kind: "no-offer", id });
  });

  it("is only the recipient's to take", () => {
    const { h, lead } = pair();
    const id = offer(lead);
    const carol = h.start("carol").engine;
    carol.join({ label: "carol" });
    expect(carol.accept(id)._unsafeUnwrapErr()).toEqual({ kind: "no-offer", id });
    expect(ownersOf(h, "src/api")).toEqual([idOf.alice]);
  });

  it("lapses when the sender leaves (its claims go with it), when it is gone, and after the message TTL", () => {
    const left = pair();
    const id = offer(left.lead);
    left.h.shutdown("alice");
    expect(offers(left.h)).toEqual([]);
    expect(left.peer.accept(id)._unsafeUnwrapErr()).toEqual({ kind: "no-offer", id });

    const crashed = pair();
    const id2 = offer(crashed.lead);
    crashed.h.crash("alice");
    expect(crashed.peer.accept(id2)._unsafeUnwrapErr()).toEqual({
      kind: "offer-lapsed",
      id: id2,
      reason: "sender-left",
    });
    expect(offers(crashed.h)).toEqual([]);

    const aged = pair();
    const id3 = offer(aged.lead);
    aged.h.advance(messageTtlMs + 1_000);
    expect(aged.peer.accept(id3)._unsafeUnwrapErr()).toMatchObject({ kind: "offer-lapsed", reason: "expired" });
    expect(ownersOf(aged.h, "src/api")).toEqual([idOf.alice]);
  });

  it("lapses when the recipient leaves, and a status prune removes an offer no one can take", () => {
    const { h, lead } = pair();
    offer(lead);
    h.shutdown("bob");
    expect(offers(h)).toEqual([]);
    const again = pair();
    offer(again.lead);
    again.h.crash("bob");
    again.lead.status();
    expect(offers(again.h)).toEqual([]);
  });

  it("takes what is still offered when the sender released part of it since, and says so", () => {
    const { h, lead, peer } = pair();
    const id = offer(lead);
    lead.release(["README.md"]);
    expect(peer.accept(id)._unsafeUnwrap()).toMatchObject({ taken: ["src/api"], released: ["README.md"] });
    expect(ownersOf(h, "README.md")).toEqual([]);
    const id2 = peer.send({ to: "lead", kind: "handoff", text: "back", paths: ["src/api"] })._unsafeUnwrap().messageId;
    peer.release(["src/api"]);
    expect(lead.accept(id2)._unsafeUnwrapErr()).toEqual({ kind: "offer-lapsed", id: id2, reason: "released" });
  });

  it("does not take a claim the sender released and made again after the offer: the offer was for the old one", () => {
    const { h, lead, peer } = pair();
    const id = offer(lead);
    lead.release(["README.md"]);
    lead.claim(["README.md"])._unsafeUnwrap();
    expect(peer.accept(id)._unsafeUnwrap()).toMatchObject({ taken: ["src/api"], released: ["README.md"] });
    expect(ownersOf(h, "README.md")).toEqual([idOf.alice]);
    expect(peer.checkEdit("README.md")._unsafeUnwrap().kind).toBe("held");
  });

  it("keeps what it moved but a third session claimed in the same instant: let go, named, and not reported taken", () => {
    const h = createBusHarness();
    const lead = h.start("alice").engine;
    lead.join({ label: "lead" });
    const carol = h.start("carol").engine;
    carol.join({ label: "carol" });
    // Carol's claim of docs lists claims/ while docs' claim is mid-rename: she sees no holder.
    const peer = h.start("bob", {
      wrapFs: onRename((rename, from, to) => {
        if (!from.includes("/claims/docs~")) return rename(from, to);
        rename(from, `${busRoot}/in-flight`);
        carol.claim(["docs"])._unsafeUnwrap();
        rename(`${busRoot}/in-flight`, to);
      }),
    }).engine;
    peer.join({ label: "peer" });
    lead.claim(["src/api", "docs"]);
    const id = lead
      .send({ to: "peer", kind: "handoff", text: "both", paths: ["src/api", "docs"] })
      ._unsafeUnwrap().messageId;
    const report = peer.accept(id)._unsafeUnwrap();
    expect(report.taken).toEqual(["src/api"]);
    expect(report.lost).toEqual([{ path: "docs", heldPath: "docs", holder: { id: idOf.carol, label: "carol" } }]);
    expect(ownersOf(h, "docs")).toEqual([idOf.carol]);
    expect(ownersOf(h, "src/api")).toEqual([idOf.bob]);
    expect(acceptText(report).text).toMatch(
      /^Took src\/api from lead .*Not taken, since another session claimed it in the same instant: docs is claimed by carol/,
    );
  });

  it("cut short by a crash after one claim moved, leaves each path with one holder; accepting again finishes", () => {
    const h = createBusHarness();
    const lead = h.start("alice").engine;
    lead.join({ label: "lead" });
    let renames = 0;
    const dying = h.start("bob", {
      wrapFs: onRename((rename, from, to) => {
        if (from.includes("/claims/") && ++renames === 2) throw Object.assign(new Error("killed"), { code: "EIO" });
        rename(from, to);
      }),
    }).engine;
    dying.join({ label: "peer" });
    lead.claim(["src/api", "docs"]);
    const id = lead
      .send({ to: "peer", kind: "handoff", text: "both", paths: ["src/api", "docs"] })
      ._unsafeUnwrap().messageId;
    expect(dying.accept(id).isErr()).toBe(true);
    expect(ownersOf(h, "src/api")).toEqual([idOf.bob]);
    expect(ownersOf(h, "docs")).toEqual([idOf.alice]);
    expect(dying.accept(id)._unsafeUnwrap()).toMatchObject({ taken: ["src/api", "docs"] });
    expect(ownersOf(h, "docs")).toEqual([idOf.bob]);
  });
});

describe("what status shows of offers and observed claims", () => {
  it("lists an offer that stands, from its sender to its recipient, until it is taken", () => {
    const { lead, peer } = pair();
    const id = offer(lead);
    const view = peer.status()._unsafeUnwrap();
    expect(view.offers).toEqual([
      {
        id,
        from: { id: idOf.alice, label: "lead" },
        to: { id: idOf.bob, label: "peer" },
        keys: ["src/api", "README.md"],
      },
    ]);
    expect(lead.snapshot()._unsafeUnwrap().offers).toHaveLength(1);
    peer.accept(id);
    expect(lead.status()._unsafeUnwrap().offers).toEqual([]);
  });

  it("marks a claim an edit took as observed", () => {
    const { lead } = pair();
    lead.checkEdit("src/api/routes.ts");
    const row = lead
      .status()
      ._unsafeUnwrap()
      .sessions.find((s) => s.self);
    expect(row?.claims).toContain("src/api");
    expect(row?.observed).toEqual([]);
    const h = createBusHarness();
    const solo = h.start("carol").engine;
    solo.join({ label: "solo" });
    solo.checkEdit("README.md");
    expect(solo.status()._unsafeUnwrap().sessions[0]).toMatchObject({ claims: ["README.md"], observed: ["README.md"] });
  });
});
