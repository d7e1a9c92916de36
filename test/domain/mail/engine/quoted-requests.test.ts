// The requests a reply quotes, and hands message:inbound as `requests`, come from this session's
// sent copies found by the id inside each file: a decoy named like a copy is never quoted and never
// hides the copy, and a reply naming the most requests finds them all in a full sent/.
import { describe, expect, it } from "vitest";
import type { InboundMail } from "../../../../src/domain/mail/engine/index.js";
import { type Envelope, encodeEnvelope, envelopeFileName } from "../../../../src/domain/mail/envelope.js";
import { folderEntriesMax, inReplyToMax } from "../../../../src/domain/mail/limits.js";
import { addressOf, createHarness, mailRoot } from "./harness.js";

const bobSent = `${mailRoot}/${addressOf.bob}/sent`;

/** A request bob sent to alice, as its copy in bob's sent/ holds it. */
const copy = (id: string): Envelope => ({
  id,
  from: addressOf.bob,
  to: addressOf.alice,
  kind: "request",
  hops: 0,
  in_reply_to: [],
  status: "",
  ts: "2023-11-14T22:13:20.000Z",
  body: `Request ${id}.`,
});

describe("the requests a reply quotes (quotedRequests)", () => {
  // "The sent copy is found by the envelope's id, not by the first file whose name ends the same way"
  it("quotes the sent copy and hands it to listeners, never a decoy named like it that sorts first", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    const seen: InboundMail[] = [];
    bob.engine.onInbound((mail) => seen.push(mail));
    const sent = bob.engine.request("alice", "The real request.", "command")._unsafeUnwrap().envelope;
    const [copyName] = h.files("bob", "sent");
    const decoy = (n: number) => `${bobSent}/${String(n).padStart(15, "0")}-${sent.id}.json`;
    h.vol.writeFileSync(decoy(1), encodeEnvelope({ ...sent, id: "forged-1", body: "The forged request." }));
    h.vol.mkdirSync(decoy(2));
    h.vol.writeFileSync(decoy(3), encodeEnvelope({ ...sent, from: addressOf.carol, body: "Carol's request." }));

    h.hint("alice");
    alice.completeRun("Done.");
    h.hint("bob");

    expect(seen).toHaveLength(1);
    expect(seen[0]?.requests).toEqual([{ envelope: sent, path: `${bobSent}/${copyName}` }]);
    const quoted = bob.host.injected.at(-1)?.mail.content ?? "";
    expect(quoted).toContain(`- request ${sent.id} (sent copy at ${bobSent}/${copyName}): The real request.`);
    expect(quoted).not.toContain("forged");
    expect(quoted).not.toContain("Carol's");
  });

  it("quotes a request by its id alone when every file named like its copy is a decoy", () => {
    const h = createHarness();
    const bob = h.launch("bob");
    const seen: InboundMail[] = [];
    bob.engine.onInbound((mail) => seen.push(mail));
    h.vol.mkdirSync(bobSent, { recursive: true });
    h.vol.writeFileSync(`${bobSent}/${envelopeFileName(1, "asked")}`, encodeEnvelope(copy("another")));
    h.vol.mkdirSync(`${bobSent}/asked.json`);
    h.plant({ from: addressOf.alice, to: addressOf.bob, kind: "reply", status: "done", in_reply_to: ["asked"] });
    h.hint("bob");

    expect(seen[0]?.requests).toEqual([]);
    const quoted = bob.host.injected.at(-1)?.mail.content ?? "";
    expect(quoted).toContain("- asked (this session kept no copy)");
    expect(quoted).not.toContain("Request another.");
  });

  it(`quotes all ${inReplyToMax} requests of a reply among ${folderEntriesMax} other copies, those past the listing bound included`, () => {
    const h = createHarness();
    const bob = h.launch("bob");
    const seen: InboundMail[] = [];
    bob.engine.onInbound((mail) => seen.push(mail));
    // The fillers sort first, so every asked copy lies past a listing cut at folderEntriesMax names.
    const filler = encodeEnvelope(copy("filler"));
    for (let i = 0; i < folderEntriesMax; i++)
      h.vol.writeFileSync(`${bobSent}/${envelopeFileName(i, `f-${i}`)}`, filler);
    const asked = Array.from({ length: inReplyToMax }, (_, i) => copy(`asked-${i}`));
    const paths = asked.map((mail, i) => `${bobSent}/${envelopeFileName(folderEntriesMax + i, mail.id)}`);
    for (const [i, mail] of asked.entries()) h.vol.writeFileSync(paths[i]!, encodeEnvelope(mail));
    const ids = asked.map((mail) => mail.id);
    h.plant({ from: addressOf.alice, to: addressOf.bob, kind: "reply", status: "done", in_reply_to: ids });
    h.hint("bob");

    expect(seen[0]?.requests).toEqual(asked.map((envelope, i) => ({ envelope, path: paths[i] })));
  });
});
