// Issue 9 §3: "Mail is shown for people, sent for models". Injected mail draws as a compact header
// (kind, sender's name, status) with its body on demand, while the model still gets the whole
// framed text; tool results draw as one line, all of it on demand. The views are pure functions of
// what Pi passes (the message or result, the options, the theme), checked here with a stub theme.
import { visibleWidth } from "@earendil-works/pi-tui";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { renderMail } from "../../../src/pi/mail/renderers.js";
import { wrapToWidth } from "../../../src/pi/shared/display-width.js";
import { renderToolResult, type ViewTheme } from "../../../src/pi/shared/tool-view.js";
import { useSandbox, waitFor } from "./fake-session.js";
import { ids } from "./mail-files.js";

const sandbox = useSandbox();

/** Colours as visible tags, so a test sees which part got which style. */
const theme: ViewTheme = {
  fg: (color, text) => `<${color}>${text}</>`,
  bg: (_color, text) => text,
  bold: (text) => `*${text}*`,
};
const plain = (line: string) => line.replace(/<[^>]*>|\*/g, "");
const options = (expanded: boolean) => ({ expanded, outputPad: 1, keyText: () => "ctrl+o" });

describe("injected mail in the TUI", () => {
  it("is registered for session-mail's custom type, and the model's content stays the whole framed text", async () => {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob, { name: "reviewer" });
    await alice.tool("session_mail_send", { to: ids.bob, message: "Line one.\nLine two.\nLine three." });
    const sent = await waitFor(() => bob.mail()[0], "the message at bob");
    expect(String(sent.content)).toMatch(/^\[mailbox\] From a11ce000 \(/);
    expect(String(sent.content)).toMatch(
      /\[mailbox\] End of the mail from a11ce000\. Text after this line is not part of it\.$/,
    );
    const render = bob.pi.renderers.get("session-mail");
    expect(render).toBeDefined();
    const collapsed = render?.(
      {
        role: "custom",
        customType: "session-mail",
        content: String(sent.content),
        display: true,
        details: sent.details,
        timestamp: 0,
      },
      { ...options(false), keyHint: () => "" } as never,
      theme as never,
    );
    expect(
      collapsed
        ?.render(60)
        .map(plain)
        .map((l) => l.trimEnd()),
    ).toEqual([" ✉ message from a11ce000", " Line one.", " ctrl+o for 2 more lines"]);
  });

  it("shows a reply's status and, expanded, its whole body", () => {
    const content = [
      "[mailbox] From builder (0190a1a1-7f64-7000-8000-000000000001, working in /repo), another Pi session on this machine.",
      "This is its reply, status stopped, to your request r1. It is not an answer: the user stopped that run.",
      "",
      "partial work",
      "more",
      "[mailbox] End of the mail from builder. Text after this line is not part of it.",
    ].join("\n");
    const message = { content, details: { kind: "reply", from: "0190a1a1-7f64-7000-8000-000000000001" } };
    expect(renderMail(message, options(false), theme).render(50).map(plain)[0]?.trimEnd()).toBe(
      " ✉ reply from builder · stopped, not an answer",
    );
    const expanded = renderMail(message, options(true), theme)
      .render(50)
      .map(plain)
      .map((l) => l.trimEnd());
    expect(expanded).toEqual([" ✉ reply from builder · stopped, not an answer", " partial work", " more"]);
  });

  it("never draws an escape sequence or a control a peer put in the body, and fits every line to the width", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), fc.integer({ min: 4, max: 120 }), (body, width) => {
        const content = `[mailbox] From x (id), another Pi session on this machine.\nIt sent you message m.\n\n${body}\n[mailbox] End of the mail from x. Text after this line is not part of it.`;
        const lines = renderMail({ content, details: { kind: "message", from: "id" } }, options(true), theme).render(
          width,
        );
        for (const line of lines) {
          expect(plain(line)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
          expect(visibleWidth(plain(line))).toBeLessThanOrEqual(width);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("tool results in the TUI", () => {
  const result = (text: string, details: Record<string, unknown>) => ({ content: [{ type: "text", text }], details });

  it("collapse to their one-line summary, and expand to the whole text the model read", () => {
    const answered = result("Answer from builder:\n\n42\nbecause 6 x 7", { summary: "builder answered: 42" });
    const collapsed = renderToolResult(answered, { expanded: false, isPartial: false }, theme, { isError: false });
    expect(
      collapsed
        .render(80)
        .map(plain)
        .map((l) => l.trimEnd()),
    ).toEqual(["builder answered: 42"]);
    const expanded = renderToolResult(answered, { expanded: true, isPartial: false }, theme, { isError: false });
    expect(
      expanded
        .render(80)
        .map(plain)
        .map((l) => l.trimEnd()),
    ).toEqual(["Answer from builder:", "", "42", "because 6 x 7"]);
  });

  it("show a waiting ask's progress while partial, and a refusal's first line in the error colour", () => {
    const waiting = result("Waiting on builder for 20 s (up to 10 min).", {
      summary: "Waiting on builder for 20 s (up to 10 min).",
    });
    expect(
      renderToolResult(waiting, { expanded: true, isPartial: true }, theme, { isError: false }).render(80),
    ).toEqual([`<muted>Waiting on builder for 20 s (up to 10 min).</>${" ".repeat(80 - 43)}`]);
    const refused = { content: [{ type: "text", text: "Refused: the message is empty." }], details: {} };
    expect(
      renderToolResult(refused, { expanded: false, isPartial: false }, theme, { isError: true }).render(40)[0],
    ).toBe(`<error>Refused: the message is empty.</>${" ".repeat(10)}`);
  });

  it("cut a long summary to one line of the width", () => {
    const long = result("x", { summary: "word ".repeat(40) });
    const lines = renderToolResult(long, { expanded: false, isPartial: false }, theme, { isError: false }).render(30);
    expect(lines).toHaveLength(1);
    expect(visibleWidth(plain(lines[0] ?? ""))).toBe(30);
    expect(
      plain(lines[0] ?? "")
        .trimEnd()
        .endsWith("…"),
    ).toBe(true);
  });
});

describe("wrapToWidth", () => {
  it("wraps at the last space, breaks a word longer than the width, and counts wide characters as two columns", () => {
    expect(wrapToWidth("the quick brown fox", 10)).toEqual(["the quick", "brown fox"]);
    expect(wrapToWidth("abcdefghij", 4)).toEqual(["abcd", "efgh", "ij"]);
    expect(wrapToWidth("日本語のテキスト", 6)).toEqual(["日本語", "のテキ", "スト"]);
  });
});
