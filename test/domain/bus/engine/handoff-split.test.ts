// A handoff that splits one sender's claims on one file: it offers one name of a file it holds under
// two (a hard link). Found by the bus simulator (seed 73): the accept looked again by key only, so
// both sessions kept a live claim on the one file.
import { describe, expect, it } from "vitest";
import { createBusHarness, idOf, repo } from "./harness.js";

describe("a handoff of one name of a file the sender holds under two", () => {
  it("leaves the file with one live holder: the recipient lets go of the name it took", () => {
    const h = createBusHarness();
    h.vol.linkSync(`${repo}/src/api/routes.ts`, `${repo}/README-link.ts`);
    const lead = h.start("alice").engine;
    lead.join({ label: "lead" });
    const peer = h.start("bob").engine;
    peer.join({ label: "peer" });
    lead.claim(["src/api/routes.ts"])._unsafeUnwrap();
    const id = lead
      .send({ to: "peer", kind: "handoff", text: "Take routes.", paths: ["src/api/routes.ts"] })
      ._unsafeUnwrap().messageId;
    // Allowed: one session may hold one file under both its names.
    lead.claim(["README-link.ts"])._unsafeUnwrap();
    const accepted = peer.accept(id);
    const holders = new Set(
      h
        .claimFiles()
        .filter((name) => !name.startsWith("!"))
        .map((name) => name.split("~")[1]),
    );
    expect(accepted.isErr() && accepted.error.kind).toBe("claim-conflict");
    expect([...holders]).toEqual([idOf.alice]);
    expect(peer.checkEdit("src/api/routes.ts")._unsafeUnwrap().kind).toBe("held");
  });
});
