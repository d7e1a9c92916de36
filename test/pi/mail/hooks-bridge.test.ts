import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createEventBus, type ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import type { Envelope } from "../../../src/domain/mail/envelope.js";
import { type FakeSession, useSandbox, waitFor } from "./fake-session.js";
import { envelopesIn, ids, mailFiles } from "./mail-files.js";

const sandbox = useSandbox();

interface Inbound {
  envelope: Envelope;
  path: string;
  requests: Array<{ envelope: Envelope; path: string }>;
  handled: boolean;
}

function emit(session: FakeSession, channel: string, payload: Record<string, unknown>): Record<string, unknown> {
  session.pi.api.events.emit(channel, payload);
  return payload;
}

/** Records every message:inbound payload at a session, with how many messages it had been sent by then. */
function listen(session: FakeSession, take?: (inbound: Inbound) => boolean) {
  const seen: Array<{ inbound: Inbound; id: string; injectedBefore: number }> = [];
  session.pi.api.events.on("message:inbound", (data) => {
    const inbound = data as Inbound;
    seen.push({ inbound, id: inbound.envelope.id, injectedBefore: session.pi.sent.length });
    if (take?.(inbound) === true) inbound.handled = true;
  });
  return seen;
}

describe("message:send", () => {
  it("while idle writes a request from this session with hops 0 and sets envelope before emit returns", async () => {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob);
    const payload = emit(alice, "message:send", { to: ids.bob, body: "Please run the test suite." });
    expect(payload.error).toBeUndefined();
    const envelope = payload.envelope as Envelope;
    expect(envelope).toMatchObject({
      from: ids.alice,
      to: ids.bob,
      kind: "request",
      hops: 0,
      in_reply_to: [],
      status: "",
      body: "Please run the test suite.",
    });
    expect(Date.parse(envelope.ts)).not.toBeNaN();
    expect(envelopesIn(sandbox.root, ids.alice, "sent").map((e) => e.id)).toEqual([envelope.id]);
    expect((await bob.mailFor(envelope.id)).mail.kind).toBe("request");
  });

  it.each([
    ["a to that is not an address", { to: "../bob", body: "x" }, 'Refused: "../bob" is not a session address.'],
    [
      "a to that is not a string",
      { to: 42, body: "x" },
      "message:send needs a string `to` (an address) and a string `body`.",
    ],
    ["an empty body", { to: ids.bob, body: " \n" }, "Refused: the message is empty."],
    ["this session's own address", { to: ids.alice, body: "x" }, "Refused: A session cannot send mail to itself."],
  ])("sets error, and writes nothing, for %s", async (_what, fields, error) => {
    const alice = await sandbox.started(ids.alice);
    await sandbox.started(ids.bob);
    const payload = emit(alice, "message:send", { ...fields });
    expect(payload).toEqual({ ...fields, error });
    expect(mailFiles(sandbox.root)).toEqual([]);
  });

  it.each([
    ["before session_start", async () => sandbox.session(ids.alice)],
    ["with the mailbox off (an invalid session id)", () => sandbox.started("../alice")],
    [
      "after session_shutdown",
      async () => {
        const alice = await sandbox.started(ids.alice);
        await alice.shutdown();
        return alice;
      },
    ],
  ])(
    "sets error (no active session) %s, so a consumer does not conclude no provider is installed",
    async (_when, make) => {
      // Spec: error is "why nothing was written: no active session, or an invalid to or body".
      await sandbox.started(ids.bob);
      const alice = await make();
      const payload = emit(alice, "message:send", { to: ids.bob, body: "nobody home" });
      expect(payload).toEqual({
        to: ids.bob,
        body: "nobody home",
        error: "Refused: this session's mailbox is not running.",
      });
      expect(mailFiles(sandbox.root)).toEqual([]);
    },
  );

  it("during a run carries the run's hop count and is never refused for it; idle again, it carries 0", async () => {
    // Spec: "One emitted during a run carries that run's count and is not refused at send time."
    writeFileSync(join(sandbox.agentDir, "session-mail.json"), JSON.stringify({ hopLimit: 1 }));
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob);
    emit(bob, "message:send", { to: ids.alice, body: "first" });
    const first = await waitFor(() => alice.mail()[0], "the request at alice");
    await alice.agentStart();
    await alice.enter(first.mail.mailId);
    expect((emit(alice, "message:send", { to: ids.bob, body: "delegated" }).envelope as Envelope).hops).toBe(1);
    await alice.assistant("done");
    await alice.settle(false);
    expect((emit(alice, "message:send", { to: ids.bob, body: "idle" }).envelope as Envelope).hops).toBe(0);
  });
});

describe("message:inbound", () => {
  it("is emitted for each claimed envelope before it is injected, with its path in cur/ and the requests a reply answers", async () => {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob);
    const atAlice = listen(alice);
    const atBob = listen(bob);
    const request = emit(alice, "message:send", { to: ids.bob, body: "build it" }).envelope as Envelope;
    await bob.mailFor(request.id);
    expect(atBob.map((s) => [s.id, s.injectedBefore])).toEqual([[request.id, 0]]);
    const [claimed] = atBob;
    expect(claimed?.inbound).toMatchObject({
      envelope: { kind: "request", body: "build it" },
      requests: [],
      handled: false,
    });
    expect(claimed?.inbound.path).toMatch(new RegExp(`/${ids.bob}/cur/[^/]+${request.id}\\.json$`));
    expect(existsSync(claimed?.inbound.path ?? "")).toBe(true);

    await bob.runDone("built");
    const reply = await waitFor(() => alice.mail().find((m) => m.mail.kind === "reply"), "the reply at alice");
    expect(atAlice.map((s) => [s.id, s.injectedBefore])).toEqual([[reply.mail.mailId, 0]]);
    const answered = atAlice[0]?.inbound;
    expect(answered?.envelope).toMatchObject({
      kind: "reply",
      status: "done",
      in_reply_to: [request.id],
      body: "built",
    });
    expect(answered?.requests.map((r) => [r.envelope.id, r.envelope.body])).toEqual([[request.id, "build it"]]);
    expect(answered?.requests[0]?.path).toMatch(new RegExp(`/${ids.alice}/sent/[^/]+${request.id}\\.json$`));
  });

  it("a listener that sets handled prevents the injection; a handled request still counts as read and is answered", async () => {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob);
    const atBob = listen(bob, () => true);
    const request = emit(alice, "message:send", { to: ids.bob, body: "quietly" }).envelope as Envelope;
    await waitFor(() => atBob.length === 1, "the request emitted at bob");
    expect(bob.mail()).toEqual([]);
    expect(bob.footer()).toBe("✉ 1 read");
    await bob.agentStart();
    await bob.assistant("handled by the listener's extension");
    await bob.settle(false);
    expect(envelopesIn(sandbox.root, ids.alice, "new").map((e) => [e.in_reply_to, e.body])).toEqual([
      [[request.id], "handled by the listener's extension"],
    ]);
  });

  it("is never emitted inside session_start: listeners set up in any session_start still see waiting mail", async () => {
    const alice = await sandbox.started(ids.alice);
    await alice.tool("session_mail_send", { to: ids.bob, message: "waiting for you" });
    const seen: string[] = [];
    const subscribe = (when: string) => (api: ExtensionAPI) =>
      api.on("session_start", () => {
        api.events.on("message:inbound", (data) => void seen.push(`${when}:${(data as Inbound).envelope.body}`));
      });
    const bob = sandbox.session(ids.bob, { loadBefore: subscribe("before") });
    subscribe("after")(bob.pi.api);
    await bob.start();
    expect(seen).toEqual([]);
    expect(bob.pi.sent).toEqual([]);
    await waitFor(() => bob.mail().length === 1, "the waiting message injected");
    expect(seen.sort()).toEqual(["after:waiting for you", "before:waiting for you"]);
  });
});

describe("message:scan", () => {
  it("claims waiting mail synchronously: message:inbound and the injection happen before emit returns, then scanned is true", async () => {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob);
    const atAlice = listen(alice);
    // Both emits run in one synchronous stretch: no watcher event or poll can claim the mail in between.
    const sent = emit(bob, "message:send", { to: ids.alice, body: "claim me now" }).envelope as Envelope;
    expect(envelopesIn(sandbox.root, ids.alice, "new").map((e) => e.id)).toEqual([sent.id]);
    const payload = emit(alice, "message:scan", {});
    expect(payload).toEqual({ scanned: true });
    expect(atAlice.map((s) => s.id)).toEqual([sent.id]);
    expect(alice.mail().map((m) => m.mail.mailId)).toEqual([sent.id]);
    expect(envelopesIn(sandbox.root, ids.alice, "new")).toEqual([]);
  });
});

describe("with no provider installed", () => {
  it("a bus without session-mail leaves message:send and message:scan payloads untouched", () => {
    const bareBus = createEventBus();
    const send: Record<string, unknown> = { to: ids.bob, body: "hello" };
    const scan: Record<string, unknown> = {};
    bareBus.emit("message:send", send);
    bareBus.emit("message:scan", scan);
    expect(send).toEqual({ to: ids.bob, body: "hello" });
    expect(scan).toEqual({});
  });
});
