// Whether a mail was shown in this session, as the recovery of a claimed mail asks it: in this
// process's memory, or in the session file on disk, where another process on the same session id
// (a twin that took mail and crashed before its journal let it go) appended it.
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mailMessageType } from "../../../src/domain/mail/message-type.js";
import { createPiHost } from "../../../src/pi/mail/pi-host.js";

const shownId = "0190e5e5-b0a7-7000-8000-00000000a001";
const otherId = "0190e5e5-b0a7-7000-8000-00000000a002";
const line = (entry: unknown) => `${JSON.stringify(entry)}\n`;
const mailEntry = (mailId: string) =>
  line({ type: "custom_message", customType: mailMessageType, content: "hi", display: true, details: { mailId } });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pi-host-shown-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function hostOver(file: string | undefined, entries: unknown[] = []) {
  const ctx = { sessionManager: { getEntries: () => entries, getSessionFile: () => file } };
  return createPiHost({} as ExtensionAPI, ctx as unknown as ExtensionContext, () => true);
}

describe("hasShown", () => {
  it("finds a mail another process appended to the session file, and nothing else", () => {
    const file = join(dir, "session.jsonl");
    writeFileSync(file, line({ type: "session", id: "s" }));
    const host = hostOver(file);
    expect(host.hasShown(shownId)).toBe(false);
    appendFileSync(file, mailEntry(shownId));
    // The id quoted in text is not the mail shown.
    appendFileSync(file, line({ type: "message", message: { role: "user", content: `about ${otherId}` } }));
    expect(host.hasShown(shownId)).toBe(true);
    expect(host.hasShown(otherId)).toBe(false);
  });

  it("finds an ask's answer appended by another process", () => {
    const file = join(dir, "session.jsonl");
    const answer = { role: "toolResult", toolName: "session_mail_ask", details: { answer: otherId } };
    writeFileSync(file, line({ type: "message", message: answer }));
    expect(hostOver(file).hasShown(otherId)).toBe(true);
  });

  it("answers from memory when the session has no file yet, and reads a torn last line as nothing", () => {
    expect(
      hostOver(undefined, [
        { type: "custom_message", customType: mailMessageType, details: { mailId: shownId } },
      ]).hasShown(shownId),
    ).toBe(true);
    expect(hostOver(join(dir, "missing.jsonl")).hasShown(shownId)).toBe(false);
    const file = join(dir, "torn.jsonl");
    writeFileSync(file, mailEntry(shownId).slice(0, 60));
    expect(hostOver(file).hasShown(shownId)).toBe(false);
  });
});
