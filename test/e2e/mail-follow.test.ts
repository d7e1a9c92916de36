// Mail you can follow, between real `pi --mode rpc` processes: `/mailbox sent` shows where each item
// stands (read from the files), and `/mailbox cancel` withdraws a request still queued for a session
// that is not running, and refuses one already claimed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type PiSession, type Sandbox, unexpectedStderr } from "./harness/rpc-session.js";
import {
  mailbox,
  mailboxRequest,
  readBox,
  runTimeoutMs,
  startMailSessions,
  startTimeoutMs,
  waitForReply,
} from "./mail-support.js";

const ant = { id: "0190a1a1-6666-7000-8000-0000000000a1", name: "ant" };
const bee = { id: "0190b2b2-6666-7000-8000-0000000000b2", name: "bee" };
/** Never started: its mail waits in its inbox. */
const closed = "0190c3c3-6666-7000-8000-0000000000c3";

describe("mail you can follow, between real Pi RPC sessions", () => {
  let sandbox: Sandbox;
  let a: PiSession;
  let b: PiSession;

  beforeAll(async () => {
    sandbox = createSandbox();
    [a, b] = (await startMailSessions(sandbox, [ant, bee])) as [PiSession, PiSession];
  }, startTimeoutMs * 2);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, 30_000);

  it("lists a request answered by a running session and one waiting for a closed session to start", async () => {
    const answered = await mailboxRequest(a, "bee", "say hi", bee.id);
    await waitForReply(sandbox, ant.id, answered, { timeoutMs: runTimeoutMs, what: "bee's reply", alive: [a, b] });
    const waiting = await mailboxRequest(a, closed, "for when you start", closed);
    const shown = await mailbox(a, "sent");
    const lines = shown.message.split("\n");
    expect(lines[1]).toMatch(
      new RegExp(
        `^- request ${waiting.slice(0, 8)} to 0190c3c3, \\d+s ago: waiting for 0190c3c3 to start · for when you start$`,
      ),
    );
    expect(lines[2]).toMatch(new RegExp(`^- request ${answered.slice(0, 8)} to bee, \\d+s ago: answered · say hi$`));
  });

  it("withdraws the queued request by one rename, and refuses to withdraw the claimed one", async () => {
    const [queued] = readBox(sandbox, closed, "new");
    expect(queued).toBeDefined();
    const withdrawn = await mailbox(a, `cancel ${queued!.envelope.id.slice(0, 8)}`);
    expect(withdrawn).toEqual({
      message: `Withdrawn: the request ${queued!.envelope.id.slice(0, 8)} to 0190c3c3 was still queued, and now never reaches it.`,
      level: "info",
    });
    expect(readBox(sandbox, closed, "new")).toEqual([]);
    expect(readBox(sandbox, ant.id, "sent").map((m) => m.envelope.id)).not.toContain(queued!.envelope.id);
    const [claimed] = readBox(sandbox, bee.id, "cur").filter((m) => m.envelope.from === ant.id);
    const refused = await mailbox(a, `cancel ${claimed!.envelope.id}`);
    expect(refused.level).toBe("error");
    expect(refused.message).toMatch(
      /^Too late: the request [0-9a-f]{8} to bee was already taken from its inbox \(answered\)/,
    );
  });

  it("holds a request back while bee's person says hold, and delivers it at accept", async () => {
    expect((await mailbox(b, "hold")).message).toMatch(/^Holding mail back: /);
    const held = await mailboxRequest(a, "bee", "when you are ready", bee.id);
    const shown = await mailbox(a, "sent");
    expect(shown.message.split("\n")[1]).toMatch(
      new RegExp(
        `^- request ${held.slice(0, 8)} to bee, \\d+s ago: queued, held back by bee's person · when you are ready$`,
      ),
    );
    expect(readBox(sandbox, bee.id, "new").map((m) => m.envelope.id)).toEqual([held]);
    expect((await mailbox(b, "accept")).message).toBe("Accepting mail again: the 1 mail held back come now.");
    await waitForReply(sandbox, ant.id, held, { timeoutMs: runTimeoutMs, what: "bee's reply", alive: [a, b] });
  });

  it("refuses sends to bee while its person says refuse, naming why", async () => {
    await mailbox(b, "refuse");
    const refused = await mailbox(a, "bee are you there?");
    expect(refused).toEqual({
      message: `The session bee (${bee.id}) takes no mail now: its person typed /mailbox refuse. Nothing was sent; try again once it accepts mail, or ask its person.`,
      level: "error",
    });
    await mailbox(b, "accept");
  });

  it("no session printed anything but JSON records, an extension error, or unexpected stderr", () => {
    for (const pi of [a, b]) {
      expect(pi.stdoutNonJson).toEqual([]);
      expect(unexpectedStderr(pi.stderr)).toEqual([]);
      expect(pi.events.filter((r) => r.type === "extension_error")).toEqual([]);
    }
  });
});
