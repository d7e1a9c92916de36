import { describe, expect, it } from "vitest";
import type { Address } from "../../../src/domain/mail/address.js";
import { heldRequestsMax } from "../../../src/domain/mail/limits.js";
import {
  droppedBody,
  failedBody,
  givenUpBody,
  type OwedMail,
  planSettle,
  type RunOutcome,
  type SettleInput,
  type SettlePlan,
  stoppedBody,
  tookOverNote,
} from "../../../src/domain/mail/settle-rules.js";

const alice = "11111111-1111-4111-8111-111111111111" as Address;
const bob = "22222222-2222-4222-8222-222222222222" as Address;

const request = (id: string, from: Address = alice): OwedMail => ({ id, from, kind: "request" });
const ask = (id: string, from: Address = alice): OwedMail => ({ id, from, kind: "ask" });
const message = (id: string, from: Address = alice): OwedMail => ({ id, from, kind: "message" });

const done: RunOutcome = { kind: "done", text: "The answer." };
const stopped: RunOutcome = { kind: "stopped", text: "Half an answer" };
const failed: RunOutcome = { kind: "failed", error: "529 overloaded", text: "Half an answer" };

const settle = (outcome: RunOutcome, fields: Partial<Omit<SettleInput, "outcome">> = {}): SettlePlan =>
  planSettle({ read: [], held: [], unread: [], answeredAsks: new Set(), outcome, ...fields });

describe("planSettle when the run completes (done)", () => {
  // "its last answer goes back to each sender as one reply listing the requests it answers"
  it("sends one reply per sender listing its requests in the order they were read", () => {
    const plan = settle(done, { read: [request("r1"), request("r2", bob), request("r3"), message("m1")] });
    expect(plan.replies).toEqual([
      { to: alice, inReplyTo: ["r1", "r3"], status: "done", body: "The answer." },
      { to: bob, inReplyTo: ["r2"], status: "done", body: "The answer." },
    ]);
    expect(plan.held).toEqual([]);
    expect(plan.dropped).toEqual([]);
  });

  // "Each of the sender's asks not already answered with session_mail_reply gets a separate reply."
  it("answers each ask with a reply of its own, apart from the sender's requests", () => {
    const plan = settle(done, { read: [request("r1"), ask("a1"), ask("a2")] });
    expect(plan.replies).toEqual([
      { to: alice, inReplyTo: ["r1"], status: "done", body: "The answer." },
      { to: alice, inReplyTo: ["a1"], status: "done", body: "The answer." },
      { to: alice, inReplyTo: ["a2"], status: "done", body: "The answer." },
    ]);
  });

  // "The answer at settle then leaves that ask out, while the sender's other requests and asks are still answered."
  it("leaves out an ask already answered with session_mail_reply", () => {
    const plan = settle(done, { read: [request("r1"), ask("a1"), ask("a2")], answeredAsks: new Set(["a1"]) });
    expect(plan.replies.map((r) => r.inReplyTo)).toEqual([["r1"], ["a2"]]);
  });

  // "Replies and messages are never answered."
  it("never answers a message", () => {
    expect(settle(done, { read: [message("m1"), message("m2", bob)] }).replies).toEqual([]);
  });

  // "the next run that completes answers it done. That reply's body opens with (The user stopped an earlier
  // run partway and took over; ...)"
  it("answers held requests done, the body opening with the took-over note", () => {
    const plan = settle(done, { held: [request("r0")], read: [request("r1", bob)] });
    expect(plan.replies).toEqual([
      { to: alice, inReplyTo: ["r0"], status: "done", body: `${tookOverNote}\n\nThe answer.` },
      { to: bob, inReplyTo: ["r1"], status: "done", body: "The answer." },
    ]);
    expect(plan.held).toEqual([]);
  });

  it("lists a sender's held requests before its new ones in one reply with the note", () => {
    const plan = settle(done, { held: [request("r0")], read: [request("r1")] });
    expect(plan.replies).toEqual([
      { to: alice, inReplyTo: ["r0", "r1"], status: "done", body: `${tookOverNote}\n\nThe answer.` },
    ]);
  });

  it("quotes the took-over note as the spec words it", () => {
    expect(tookOverNote).toBe(
      "(The user stopped an earlier run partway and took over; the answer that follows is from the run that completed after that.)",
    );
  });

  it("answers a request only once when it is both held and read again", () => {
    const plan = settle(done, { held: [request("r0")], read: [request("r0")] });
    expect(plan.replies.map((r) => r.inReplyTo)).toEqual([["r0"]]);
  });
});

describe("planSettle when the user stopped the run", () => {
  // "A request is never answered stopped. When the user stops a run, the requests it read are held"
  it("holds the requests it read instead of answering them", () => {
    const plan = settle(stopped, { read: [request("r1"), request("r2", bob)] });
    expect(plan.replies).toEqual([]);
    expect(plan.held).toEqual([request("r1"), request("r2", bob)]);
  });

  // "Asks are never held, because their sender is blocked waiting: a stopped run answers them stopped at once."
  it("answers each ask stopped at once, with the partial text", () => {
    const plan = settle(stopped, { read: [ask("a1"), ask("a2", bob)] });
    expect(plan.replies).toEqual([
      { to: alice, inReplyTo: ["a1"], status: "stopped", body: stoppedBody("Half an answer") },
      { to: bob, inReplyTo: ["a2"], status: "stopped", body: stoppedBody("Half an answer") },
    ]);
    expect(plan.held).toEqual([]);
    expect(stoppedBody("Half an answer")).toContain("Half an answer");
    expect(stoppedBody("Half an answer")).toContain("not an answer");
  });

  it("says so when a stopped run wrote no text", () => {
    expect(stoppedBody("  ")).toContain("It wrote no text before the stop.");
  });

  it("does not answer an ask already answered with session_mail_reply", () => {
    expect(settle(stopped, { read: [ask("a1")], answeredAsks: new Set(["a1"]) }).replies).toEqual([]);
  });

  // "A request the session was stopped before reading gets a failed reply instead."
  it("answers unread requests and asks failed, saying the session stopped before it read them", () => {
    const plan = settle(stopped, { unread: [request("r1"), request("r2"), ask("a1", bob), message("m1")] });
    expect(plan.replies).toEqual([
      { to: alice, inReplyTo: ["r1", "r2"], status: "failed", body: droppedBody("request") },
      { to: bob, inReplyTo: ["a1"], status: "failed", body: droppedBody("ask") },
    ]);
    expect(droppedBody("request")).toBe("(The session was stopped before it read this request; nothing was done.)");
    expect(plan.dropped).toEqual([request("r1"), request("r2"), ask("a1", bob)]);
    expect(plan.held).toEqual([]);
  });

  it("answers nothing for an unread message", () => {
    const plan = settle(stopped, { unread: [message("m1")] });
    expect(plan.replies).toEqual([]);
    expect(plan.dropped).toEqual([]);
  });

  it("never answers a message it read", () => {
    expect(settle(stopped, { read: [message("m1")] })).toEqual({ replies: [], held: [], dropped: [] });
  });

  it("keeps requests held from earlier runs, then this run's", () => {
    const plan = settle(stopped, { held: [request("r0")], read: [request("r1"), request("r0")] });
    expect(plan.held).toEqual([request("r0"), request("r1")]);
  });

  it(`holds at most ${heldRequestsMax} requests: the oldest past it are answered failed, given up`, () => {
    const held = Array.from({ length: heldRequestsMax }, (_, i) => request(`h${i}`));
    const plan = settle(stopped, { held, read: [request("n1", bob), request("n2", bob)] });
    expect(plan.held).toHaveLength(heldRequestsMax);
    expect(plan.held[0]).toEqual(request("h2"));
    expect(plan.held.slice(-2)).toEqual([request("n1", bob), request("n2", bob)]);
    expect(plan.replies).toEqual([{ to: alice, inReplyTo: ["h0", "h1"], status: "failed", body: givenUpBody }]);
    expect(givenUpBody).toContain(`more than ${heldRequestsMax} requests`);
  });
});

describe("planSettle when the run ended on an error (failed)", () => {
  // "the run ended on an error ..., and the body gives the error, then the partial text"
  it("answers this run's requests and asks failed with the error, then the partial text", () => {
    const body = failedBody("529 overloaded", "Half an answer");
    const plan = settle(failed, { read: [request("r1"), request("r2"), ask("a1"), message("m1")] });
    expect(plan.replies).toEqual([
      { to: alice, inReplyTo: ["r1", "r2"], status: "failed", body },
      { to: alice, inReplyTo: ["a1"], status: "failed", body },
    ]);
    expect(body.indexOf("529 overloaded")).toBeLessThan(body.indexOf("Half an answer"));
    expect(body.indexOf("529 overloaded")).toBeGreaterThanOrEqual(0);
  });

  it("leaves the partial text out when there is none", () => {
    expect(failedBody("boom", "")).toBe("(The run ended on an error and did not finish the job: boom)");
  });

  // "It stays owed through further stopped runs and through runs that end on an error"
  it("keeps held requests held, unanswered", () => {
    const plan = settle(failed, { held: [request("r0")], read: [request("r1", bob)] });
    expect(plan.held).toEqual([request("r0")]);
    expect(plan.replies.flatMap((r) => r.inReplyTo)).toEqual(["r1"]);
  });

  it("answers unread requests and asks failed as dropped", () => {
    const plan = settle(failed, { unread: [request("r1"), ask("a1")] });
    expect(plan.replies).toEqual([
      { to: alice, inReplyTo: ["r1"], status: "failed", body: droppedBody("request") },
      { to: alice, inReplyTo: ["a1"], status: "failed", body: droppedBody("ask") },
    ]);
  });

  it("does not answer an ask already answered with session_mail_reply", () => {
    expect(settle(failed, { read: [ask("a1")], answeredAsks: new Set(["a1"]) }).replies).toEqual([]);
  });
});

describe("a held request across several runs", () => {
  // "It stays owed through further stopped runs and through runs that end on an error, and the next run that
  // completes answers it done."
  it("survives stopped and failed runs and is answered exactly once by the next completed run", () => {
    const first = settle(stopped, { read: [request("r1")] });
    expect(first.replies).toEqual([]);
    const second = settle(stopped, { held: first.held, read: [message("m1")] });
    expect(second.replies).toEqual([]);
    const third = settle(failed, { held: second.held });
    expect(third.replies).toEqual([]);
    const fourth = settle(done, { held: third.held, read: [request("r2", bob)] });
    expect(fourth.replies).toEqual([
      { to: alice, inReplyTo: ["r1"], status: "done", body: `${tookOverNote}\n\nThe answer.` },
      { to: bob, inReplyTo: ["r2"], status: "done", body: "The answer." },
    ]);
    // "the stopped runs' partial text is not included"
    expect(fourth.replies[0]?.body).not.toContain("Half an answer");
    const fifth = settle(done, { held: fourth.held });
    expect(fifth.replies).toEqual([]);
  });
});

describe("planSettle with many requests from one sender", () => {
  // An envelope names at most inReplyToMax requests: more are answered in several replies.
  it("answers more than 50 requests from one sender in replies of at most 50 each", () => {
    const from = "aaaaaaaa-0000-4000-8000-000000000001" as Address;
    const read = Array.from({ length: 120 }, (_, i) => ({ id: `r-${i}`, from, kind: "request" as const }));
    const plan = planSettle({
      read,
      held: [],
      unread: [],
      answeredAsks: new Set(),
      outcome: { kind: "done", text: "ok" },
    });
    expect(plan.replies.map((r) => r.inReplyTo.length)).toEqual([50, 50, 20]);
    expect(plan.replies.flatMap((r) => r.inReplyTo)).toEqual(read.map((m) => m.id));
  });
});
