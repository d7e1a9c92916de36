// Hostile floods and loose matches: a new/ full of dot-files, a late watcher hint for mail handled
// long ago, a name that reads like another session's short id (the name wins), an answer from someone other than
// the ask's target.
import { describe, expect, it } from "vitest";
import { hiddenNamesMax } from "../../../../src/domain/mail/limits.js";
import { addressOf, createHarness, mailRoot, pollMs } from "./harness.js";

describe("floods in new/", () => {
  it("claims the real mail among 20,000 dot-files, and names the dot-files in a few notices and one summary", () => {
    const h = createHarness();
    const dir = h.newDir("alice");
    h.vol.mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (let i = 0; i < 20_000; i++) h.vol.writeFileSync(`${dir}/.partial-${String(i).padStart(5, "0")}`, "");
    const planted = [1, 2, 3].map(() => h.plant({ from: addressOf.bob, to: addressOf.alice }));
    const alice = h.launch("alice");
    h.advance(pollMs);
    expect(alice.host.injected.map((i) => i.mail.details.mailId).sort()).toEqual(planted.map((e) => e.id).sort());
    const notices = alice.host.notices.map((n) => n.text);
    expect(notices.filter((t) => t.startsWith("Ignoring the dot-file"))).toHaveLength(hiddenNamesMax);
    expect(notices.filter((t) => t.startsWith("Ignoring "))).toHaveLength(hiddenNamesMax + 1);
    expect(notices).toContainEqual(expect.stringMatching(/^Ignoring \d+ more entries in this session's inbox/));
    h.advance(10 * pollMs);
    expect(alice.host.notices).toHaveLength(notices.length);
  });
});

describe("loose matches", () => {
  // The spec's order: "by exact Pi session name, then by an id prefix". The named session is warned
  // when it takes the name (test/pi/mail/warnings.test.ts); carol stays reachable by a longer prefix.
  it("sends to a session named like another session's short id by the name, and the longer prefix reaches the other", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    alice.engine.renamed(addressOf.carol.slice(0, 8));
    h.launch("carol");
    const sent = bob.engine.send(addressOf.carol.slice(0, 8), "for alice");
    expect(sent._unsafeUnwrap().envelope.to).toBe(alice.address);
    expect(bob.engine.send(addressOf.carol.slice(0, 9), "for carol")._unsafeUnwrap().envelope.to).toBe(addressOf.carol);
  });

  it("shows, for each session an ambiguous name matched, a prefix that reaches it alone among every running session", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    const carol = h.launch("carol");
    alice.engine.renamed("twin");
    bob.engine.renamed("twin");
    // An unnamed session whose id shares alice's first 8 characters (UUIDv7 ids started within a
    // minute do): alice's record under another id.
    const lookalike = "aaaaaaaa-0000-4000-8000-0000000000ff";
    const record = JSON.parse(String(h.vol.readFileSync(`${mailRoot}/running/${alice.address}.json`, "utf8")));
    h.vol.writeFileSync(
      `${mailRoot}/running/${lookalike}.json`,
      JSON.stringify({ ...record, address: lookalike, name: undefined }),
    );

    const refused = carol.engine.send("twin", "which one?")._unsafeUnwrapErr();
    if (refused.kind !== "address" || refused.error.kind !== "ambiguous")
      throw new Error("expected an ambiguous refusal");
    const shown = refused.error.candidates.find((c) => c.address === alice.address)!.prefix;
    expect(shown.length).toBeGreaterThan(8);
    expect(carol.engine.send(shown, "for alice")._unsafeUnwrap().envelope.to).toBe(alice.address);
  });

  it("takes an ask's answer only from the ask's target: a reply from anyone else naming it is mail", async () => {
    const h = createHarness();
    const carol = h.launch("carol");
    const bob = h.launch("bob");
    const dave = h.launch("dave");
    const asked = carol.engine.ask(addressOf.bob, "What is the port?", undefined);
    const askId = h.envelopes("bob", "new")[0]?.id as string;
    h.plant({
      from: dave.address,
      to: carol.address,
      kind: "reply",
      in_reply_to: [askId],
      status: "done",
      body: "6666",
    });
    h.hint("carol");
    expect(carol.host.injected.map((i) => i.mail.details.kind)).toEqual(["reply"]);
    h.hint("bob");
    bob.completeRun("8080");
    h.hint("carol");
    const outcome = (await asked)._unsafeUnwrap().outcome;
    expect(outcome).toMatchObject({ kind: "answered", envelope: { from: bob.address, body: "8080" } });
    expect(h.exists(`${mailRoot}/${addressOf.carol}`)).toBe(true);
  });
});
