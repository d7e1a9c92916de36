// The TUI shows injected mail by a header built from the frame the model reads: reading a frame
// back must give its sender and status whatever the label says, so the two cannot drift apart.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Address } from "../../../src/domain/mail/address.js";
import type { Envelope } from "../../../src/domain/mail/envelope.js";
import { frameMail, senderName } from "../../../src/domain/mail/framing.js";
import { readFrame } from "../../../src/domain/mail/mail-view.js";

const from = "0190a1a1-7f64-7000-8000-000000000001" as Address;
const to = "0190b2b2-0000-7000-8000-000000000002" as Address;

function envelope(fields: Partial<Envelope>): Envelope {
  return {
    id: "6f1c0000-0000-7000-8000-000000000003",
    from,
    to,
    kind: "request",
    hops: 0,
    in_reply_to: [],
    status: "",
    ts: "2026-01-01T00:00:00.000Z",
    body: "Please review the diff.",
    ...fields,
  };
}

describe("readFrame", () => {
  it("reads a request's sender and body back from its frame", () => {
    const content = frameMail({
      envelope: envelope({}),
      path: "/m/cur/x.json",
      sender: { name: "reviewer", cwd: "/repo" },
      quoted: [],
      askStoppedWaiting: false,
    });
    expect(readFrame(content)).toEqual({ sender: "reviewer", status: undefined, body: "Please review the diff." });
  });

  it("reads a reply's status, and keeps its quotes in the body", () => {
    const reply = envelope({ kind: "reply", status: "stopped", in_reply_to: ["r1"], body: "partial" });
    const content = frameMail({
      envelope: reply,
      path: "/m/cur/y.json",
      sender: { name: undefined, cwd: undefined },
      quoted: [{ id: "r1", copy: undefined }],
      askStoppedWaiting: false,
    });
    const view = readFrame(content);
    expect(view.sender).toBe("0190a1a1");
    expect(view.status).toBe("stopped");
    expect(view.body.split("\n")[0]).toBe("partial");
    expect(view.body).toContain("It answers:");
  });

  it("gives text that is not a frame back whole as the body", () => {
    expect(readFrame("[mailbox] Mail x arrived after the user stopped the run.")).toEqual({
      sender: undefined,
      status: undefined,
      body: "[mailbox] Mail x arrived after the user stopped the run.",
    });
  });

  it("gives back the label's sender and the body for any name and body a peer writes", () => {
    fc.assert(
      fc.property(
        fc.option(fc.string(), { nil: undefined }),
        fc.string(),
        fc.constantFrom("request", "ask", "message"),
        (name, body, kind) => {
          const env = envelope({ kind, body });
          const sender = { name, cwd: "/repo" };
          const view = readFrame(
            frameMail({ envelope: env, path: "/p", sender, quoted: [], askStoppedWaiting: false }),
          );
          expect(view.sender).toBe(senderName(env, sender));
          expect(view.body.replaceAll("> [mailbox]", "[mailbox]")).toContain(
            body.replaceAll("> [mailbox]", "[mailbox]").split("\n")[0] ?? "",
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});
