// Issue 18 §5: the system prompt doubled every tool name ("- session_mail_list: session_mail_list:
// …"): Pi prints each tool as "- <name>: <promptSnippet>", so a snippet must not name its tool.
// Both extensions are loaded into a real Pi session (Pi's own resource loader and prompt builder);
// no session starts, so nothing is written outside the temp folder.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createAgentSession,
  DefaultResourceLoader,
  SessionManager,
  SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import sessionBus from "../../src/pi/bus/index.js";
import sessionMail from "../../src/pi/mail/index.js";

const toolNames = ["session_mail_list", "session_mail_send", "session_mail_ask", "session_mail_reply", "session"];

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

async function systemPrompt(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "system-prompt-"));
  folders.push(dir);
  const agentDir = join(dir, "agent");
  const resourceLoader = new DefaultResourceLoader({
    cwd: dir,
    agentDir,
    noExtensions: true,
    extensionFactories: [sessionMail, sessionBus],
  });
  await resourceLoader.reload();
  const { session } = await createAgentSession({
    cwd: dir,
    agentDir,
    resourceLoader,
    sessionManager: SessionManager.inMemory(dir),
    settingsManager: SettingsManager.inMemory({}),
  });
  try {
    return session.systemPrompt;
  } finally {
    session.dispose();
  }
}

describe("the system prompt Pi builds with both extensions loaded", () => {
  it("lists each tool once by name, followed by what it does, not by its name again", async () => {
    const lines = (await systemPrompt()).split("\n");
    for (const name of toolNames) {
      const listed = lines.filter((line) => line.startsWith(`- ${name}: `));
      expect(listed, name).toHaveLength(1);
      const snippet = listed[0]!.slice(`- ${name}: `.length);
      expect(snippet, name).toMatch(/^[a-z]/);
      expect(snippet.startsWith(`${name}:`), `${name}'s snippet repeats its name: ${snippet}`).toBe(false);
    }
  });
});
