// Issue 9 §3: what used to pass without a word. A session that takes a name another running
// session has is told once that mail to the name is now ambiguous (and, issue 18, one that takes a
// name another running session's id starts with is told the name now captures that prefix); an unknown key in
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

  // Issue 18 §3: an exact name resolves before another session's id prefix, so a session named like
  // another's id prefix captures mail typed to that prefix; it is told so, as a duplicate name is.
  it("warns a session that takes a name another running session's id starts with, once, naming the prefix that reaches that one", async () => {
    await sandbox.started(ids.bob);
    const alice = await sandbox.started(ids.alice);
    await alice.rename("b0b0000");
    expect(warnings(alice)).toEqual([]);
    await alice.rename("b0b00000");
    await alice.rename("b0b00000");
    expect(warnings(alice)).toEqual([
      'Another running session\'s id starts with "b0b00000" (type b0b00000- to reach it): mail to "b0b00000" reaches this session, by its name, instead. /name gives this session another name.',
    ]);
  });

  it("warns a session that starts with a name another running session's id starts with", async () => {
    await sandbox.started(ids.bob);
    const alice = await sandbox.started(ids.alice, { name: "b0b00000-0000" });
    expect(warnings(alice)).toEqual([
      'Another running session\'s id starts with "b0b00000-0000" (type b0b00000 to reach it): mail to "b0b00000-0000" reaches this session, by its name, instead. /name gives this session another name.',
    ]);
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
