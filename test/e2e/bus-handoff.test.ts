// Handoffs that move claims, between real `pi --mode rpc` processes: an offer leaves the claims with
// the sender, the recipient's accept moves them (the sender's edit is then refused), a handoff of a
// path the sender does not hold is refused, and an offer lapses when its sender leaves.
import { realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  busFolder,
  callSession,
  gitRepository,
  readClaims,
  sessionOk,
  sessionRefused,
  startBusSessions,
  startTimeoutMs,
} from "./bus-support.js";
import { createSandbox, type PiSession, type Sandbox } from "./harness/rpc-session.js";

const lead = { id: "0190f0f0-0000-7000-8000-00000000a001", folder: "hand" };
const next = { id: "0190f1f1-0000-7000-8000-00000000b002", folder: "hand" };
const third = { id: "0190f2f2-0000-7000-8000-00000000c003", folder: "hand" };

const holders = (sandbox: Sandbox, key: string) => [
  ...new Set(
    readClaims(busFolder(sandbox))
      .filter((c) => c.key === key)
      .map((c) => c.owner),
  ),
];

describe("handoffs between real Pi sessions", () => {
  let sandbox: Sandbox;
  let l: PiSession;
  let n: PiSession;
  let t: PiSession;

  beforeAll(async () => {
    sandbox = createSandbox();
    const repo = realpathSync(gitRepository(sandbox, "hand"));
    writeFileSync(join(repo, "api.ts"), "one\n");
    [l, n, t] = (await startBusSessions(sandbox, [lead, next, third])) as [PiSession, PiSession, PiSession];
    await sessionOk(l, { action: "join", label: "lead" });
    await sessionOk(n, { action: "join", label: "next" });
    await sessionOk(t, { action: "join", label: "third" });
    await sessionOk(l, { action: "claim", paths: ["api.ts", "docs"] });
  }, startTimeoutMs * 3);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, 30_000);

  it("refuses to offer a path the sender does not hold, sending nothing", async () => {
    const refused = await sessionRefused(n, {
      action: "send",
      to: "lead",
      kind: "handoff",
      text: "take it",
      paths: ["api.ts"],
    });
    expect(refused).toMatch(/^Nothing sent: a handoff offers paths this session holds, and it does not hold api\.ts/);
  });

  it("offers, and the recipient's accept moves the claims: the sender's edit is then refused", async () => {
    const sent = await sessionOk(l, {
      action: "send",
      to: "next",
      kind: "handoff",
      text: "Yours: finish the API.",
      paths: ["api.ts", "docs"],
    });
    expect(sent).toMatch(/^Sent handoff about api\.ts, docs to next/);
    expect(holders(sandbox, "api.ts")).toEqual([lead.id]);
    const inbox = await sessionOk(n, { action: "inbox" });
    const id = /session\(\{action:"accept", id:"([0-9a-f-]+)"\}\)/.exec(inbox)?.[1];
    expect(id).toBeDefined();
    expect(await sessionOk(n, { action: "accept", id })).toMatch(
      /^Took api\.ts, docs from lead \(0190f0f0\): they are this session's claims now\./,
    );
    expect(holders(sandbox, "api.ts")).toEqual([next.id]);
    const edited = await callSession(l, { path: "api.ts", edits: [{ oldText: "one", newText: "two" }] }, "edit");
    expect(edited.text).toMatch(/^Blocked: api\.ts is claimed by next/);
  });

  it("an offer lapses when its sender leaves: nothing moves", async () => {
    const sent = await sessionOk(n, { action: "send", to: "third", kind: "handoff", text: "docs", paths: ["docs"] });
    expect(sent).toMatch(/^Sent handoff about docs to third/);
    const inbox = await sessionOk(t, { action: "inbox" });
    const id = /id:"([0-9a-f-]+)"/.exec(inbox)?.[1];
    await n.close();
    expect(await sessionRefused(t, { action: "accept", id })).toMatch(/^No offer .* is addressed to this session/);
    expect(holders(sandbox, "docs")).toEqual([]);
  });
});
