// Issue 9 §3: what used to pass without a word. A session that takes a name another running
// session has is told once that mail to the name is now ambiguous; an unknown key in
// session-mail.json is named once, however many sends read the file.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type FakeSession, useSandbox } from "./fake-session.js";
import { ids } from "./mail-files.js";

const sandbox = useSandbox();

const warnings = (session: FakeSession) =>
  session
    .notices()
    .filter((n) => n.level === "warning")
    .map((n) => n.text);

const twinWarning =
  'Another running session (b0b00000) is also named "twin": mail to "twin" is refused as ambiguous until one of them is renamed. /name gives this session another name.';

describe("warnings once", () => {
  it("warns a session that starts with a name another running session has, once", async () => {
    await sandbox.started(ids.bob, { name: "twin" });
    const alice = await sandbox.started(ids.alice, { name: "twin" });
    expect(warnings(alice)).toEqual([twinWarning]);
  });

  it("warns a session renamed to a name another running session has, once per name, and not for a free name", async () => {
    await sandbox.started(ids.bob, { name: "twin" });
    const alice = await sandbox.started(ids.alice);
    await alice.rename("solo");
    expect(warnings(alice)).toEqual([]);
    await alice.rename("twin");
    await alice.rename("twin");
    expect(warnings(alice)).toEqual([twinWarning]);
  });

  it("names an unknown key of session-mail.json once, at start, and not again at each send", async () => {
    writeFileSync(join(sandbox.agentDir, "session-mail.json"), JSON.stringify({ hoplimit: 2 }));
    const alice = await sandbox.started(ids.alice);
    await sandbox.started(ids.bob);
    await alice.tool("session_mail_send", { to: ids.bob, message: "one" });
    await alice.tool("session_mail_send", { to: ids.bob, message: "two" });
    expect(warnings(alice)).toEqual([
      `${join(sandbox.agentDir, "session-mail.json")}: unknown key "hoplimit" is ignored (the keys are hopLimit and pruneAfterDays).`,
    ]);
  });
});
