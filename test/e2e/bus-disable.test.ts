// PI_DISABLED_EXTENSIONS between real `pi --mode rpc` processes of the whole package: naming
// session-bus makes the bus register nothing (no session tool, no /sessions) while the mailbox
// works; naming session-mail disables the mail tools and /mailbox only. One session of each, and
// one with nothing disabled, started once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callSession,
  gitRepository,
  runTimeoutMs,
  sessionOk,
  startBusSessions,
  startTimeoutMs,
} from "./bus-support.js";
import { assistantOutcomes, isObject } from "./harness/rpc-records.js";
import { createSandbox, type PiSession, type Sandbox, unexpectedStderr } from "./harness/rpc-session.js";
import { notices } from "./mail-support.js";

const both = { id: "01906060-0000-7000-8000-000000006001", folder: "dis" };
const noBus = {
  id: "01907070-0000-7000-8000-000000007002",
  folder: "dis",
  env: { PI_DISABLED_EXTENSIONS: "session-bus" },
};
const noMail = {
  id: "01908080-0000-7000-8000-000000008003",
  folder: "dis",
  env: { PI_DISABLED_EXTENSIONS: "Other, SESSION-MAIL" },
};

const mailTools = ["session_mail_list", "session_mail_send", "session_mail_ask", "session_mail_reply"];

async function extensionCommands(pi: PiSession): Promise<string[]> {
  const response = await pi.request({ type: "get_commands" });
  const data = isObject(response.data) ? response.data : {};
  const commands = Array.isArray(data.commands) ? data.commands : [];
  return commands
    .filter((c) => isObject(c) && c.source === "extension")
    .map((c) => (isObject(c) && typeof c.name === "string" ? c.name : ""))
    .sort();
}

describe("PI_DISABLED_EXTENSIONS: one extension of the package off, the other on", () => {
  let sandbox: Sandbox;
  let on: PiSession;
  let busOff: PiSession;
  let mailOff: PiSession;

  beforeAll(async () => {
    sandbox = createSandbox();
    gitRepository(sandbox, "dis");
    [on, busOff, mailOff] = (await startBusSessions(sandbox, [both, noBus, noMail])) as [
      PiSession,
      PiSession,
      PiSession,
    ];
  }, startTimeoutMs * 2);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, 30_000);

  it("with nothing disabled, both extensions register their commands and the session tool works", async () => {
    expect(await extensionCommands(on)).toEqual(["mailbox", "sessions"]);
    expect(await sessionOk(on, { action: "status" })).toMatch(/^This session is not on the bus: /);
    const list = await callSession(on, {}, "session_mail_list");
    expect(list.isError).toBe(false);
  });

  it("session-bus disabled: no /sessions, no session tool, and /sessions reaches the model as text", async () => {
    expect(await extensionCommands(busOff)).toEqual(["mailbox"]);
    const call = await callSession(busOff, { action: "status" });
    expect(call.isError).toBe(true);
    expect(call.text).toBe("Tool session not found");

    const run = await busOff.prompt("/sessions", runTimeoutMs);
    expect(notices(run.records)).toEqual([]);
    expect(assistantOutcomes(run.records).map((o) => o.text)).toEqual(["echo: /sessions"]);
    // The mailbox still works in that session.
    expect((await callSession(busOff, {}, "session_mail_list")).isError).toBe(false);
  });

  it("session-mail disabled (names compared case-insensitively): the mail tools and /mailbox are gone, the bus works", async () => {
    expect(await extensionCommands(mailOff)).toEqual(["sessions"]);
    for (const tool of mailTools) {
      const call = await callSession(mailOff, {}, tool);
      expect(call).toMatchObject({ isError: true, text: `Tool ${tool} not found` });
    }
    expect(await sessionOk(mailOff, { action: "join", label: "mail-off" })).toMatch(/^On the bus as mail-off \(/);
    expect(await sessionOk(on, { action: "status" })).toContain(
      `- mail-off (${noMail.id.slice(0, 8)}) · active · next turn`,
    );
  });

  it("no session wrote anything unexpected to stderr", () => {
    for (const pi of [on, busOff, mailOff])
      expect(unexpectedStderr(pi.stderr), `stderr of ${pi.sessionId}`).toEqual([]);
  });
});
