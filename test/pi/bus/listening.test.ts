// Listening and wake through Pi's hooks: the next-turn report of before_agent_start, a wake raised
// only while Pi is idle, mail found mid-run raised once after the run settles (never after a run
// the user stopped), the handoff notice, and `context` dropping a notice once its mail is read.
// Vitest's fake timers drive the 2 s poll, so each step is deterministic: nothing here yields to
// the event loop, so no fs.watch hint lands between steps (the last test times the hints).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SentMessage } from "../fake-pi.js";
import { type BusSession, ids, useBusSandbox, waitFor } from "./bus-session.js";

const sandbox = useBusSandbox();
const pollMs = 2_000;

interface NoticeMessage {
  customType: string;
  content: string;
  display: boolean;
  details: { delivery: string; seq: number; ids: string[]; headline: string };
}

/** The notice a before_agent_start returned, if any. */
function reported(results: unknown[]): NoticeMessage | undefined {
  const found = results.find((r) => typeof r === "object" && r !== null && "message" in r) as
    | { message: NoticeMessage }
    | undefined;
  return found?.message;
}

/** alice listening (joined as billing-core, with wake or not), bob joined as integrator. */
async function pair(join: Record<string, unknown>): Promise<{ alice: BusSession; bob: BusSession }> {
  const alice = await sandbox.started(ids.alice);
  const bob = await sandbox.started(ids.bob);
  await alice.tool({ action: "join", label: "billing-core", ...join });
  await bob.tool({ action: "join", label: "integrator" });
  return { alice, bob };
}

async function mail(bob: BusSession, text: string, fields: Record<string, unknown> = {}): Promise<string> {
  const result = await bob.tool({ action: "send", to: "billing-core", text, ...fields });
  return (result.details as { result: { messageId: string } }).result.messageId;
}

describe("with fake timers", () => {
  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "clearImmediate"],
    });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  describe("next turn", () => {
    it("reports new mail with the next prompt once, as a visible custom message, and raises no turn", async () => {
      const { alice, bob } = await pair({});
      const id = await mail(bob, "API ready", { paths: ["src/api"] });
      vi.advanceTimersByTime(pollMs * 2);
      expect(alice.wakes()).toEqual([]);
      const notice = reported(await alice.prompt());
      expect(notice).toEqual({
        customType: "session-bus",
        display: true,
        content: `[session-bus] 1 new message on the bus.\nmessage from integrator (0190a1a1-8) · paths: src/api\n  API ready\nRead them with session({action:"inbox"}) when they matter to your work; this notice consumed nothing.`,
        details: {
          delivery: "next-turn",
          seq: 1,
          ids: [id],
          headline: "1 new message on the bus",
          preview: "integrator: API ready",
        },
      });
      expect(reported(await alice.prompt())).toBeUndefined();
      // The notice consumed nothing.
      expect(sandbox.inbox(ids.alice)).toHaveLength(1);
      const next = await mail(bob, "second");
      expect(reported(await alice.prompt())?.details.ids).toEqual([next]);
    });

    it("shows its person the count of unread bus mail in the footer, beside the mailbox's, until it is read", async () => {
      const { alice, bob } = await pair({});
      const footer = () => alice.context.statuses.filter((s) => s.key === "session-bus").at(-1)?.text;
      await mail(bob, "one");
      await mail(bob, "two");
      vi.advanceTimersByTime(pollMs);
      expect(footer()).toBe("bus: 2 unread");
      await alice.tool({ action: "inbox" });
      expect(footer()).toBeUndefined();
    });

    it("a session that joined with listen: false, or never joined, is told nothing", async () => {
      const { alice, bob } = await pair({ listen: false });
      await mail(bob, "are you there?");
      vi.advanceTimersByTime(pollMs);
      expect(await alice.prompt()).toEqual([]);
      expect(alice.wakes()).toEqual([]);
      const carol = await sandbox.started(ids.carol);
      expect(await carol.prompt()).toEqual([]);
    });
  });

  describe("wake", () => {
    it("raises one turn with triggerTurn while Pi is idle; the run it starts reports nothing again", async () => {
      const { alice, bob } = await pair({ wake: true });
      const id = await mail(bob, "handing over");
      vi.advanceTimersByTime(pollMs);
      const [wake] = alice.wakes();
      expect(alice.wakes()).toHaveLength(1);
      expect(wake).toMatchObject({
        customType: "session-bus",
        display: true,
        options: { triggerTurn: true },
        details: { delivery: "wake", ids: [id], headline: "1 new message on the bus" },
      });
      expect(await alice.customRun(wake as SentMessage)).toEqual([]);
      expect(await alice.prompt()).toEqual([]);
      vi.advanceTimersByTime(pollMs * 3);
      expect(alice.wakes()).toHaveLength(1);
    });

    it("mail found while Pi is busy is raised once, after agent_settled, and never into the running turn", async () => {
      const { alice, bob } = await pair({ wake: true });
      // Pi counts a run as started before its agent_start: ctx.isIdle() is false already.
      alice.context.idle = false;
      const id = await mail(bob, "mid-run");
      vi.advanceTimersByTime(pollMs * 2);
      expect(alice.wakes()).toEqual([]);
      await alice.agentStart();
      vi.advanceTimersByTime(pollMs);
      expect(alice.wakes()).toEqual([]);
      alice.context.idle = true;
      await alice.settle(false);
      expect(alice.wakes()).toHaveLength(1);
      expect(alice.wakes()[0]?.details).toMatchObject({ delivery: "wake", ids: [id] });
      vi.advanceTimersByTime(pollMs * 3);
      expect(alice.wakes()).toHaveLength(1);
    });

    it("one raised turn per burst: mail during the raised run waits for its settle", async () => {
      const { alice, bob } = await pair({ wake: true });
      await mail(bob, "first");
      vi.advanceTimersByTime(pollMs);
      expect(alice.wakes()).toHaveLength(1);
      await alice.agentStart();
      const second = await mail(bob, "second");
      vi.advanceTimersByTime(pollMs * 2);
      expect(alice.wakes()).toHaveLength(1);
      await alice.settle(false);
      expect(alice.wakes()).toHaveLength(2);
      expect(alice.wakes()[1]?.details).toMatchObject({ ids: [second] });
    });

    it("the run a wake started reports nothing at its start, even mail newer than the wake: that mail waits for its settle", async () => {
      const { alice, bob } = await pair({ wake: true });
      await mail(bob, "first");
      vi.advanceTimersByTime(pollMs);
      const [wake] = alice.wakes();
      const second = await mail(bob, "second");
      vi.advanceTimersByTime(pollMs);
      expect(await alice.customRun(wake as SentMessage)).toEqual([]);
      await alice.agentStart();
      await alice.settle(false);
      expect(alice.wakes().map((w) => (w.details as { ids: string[] }).ids)).toEqual([[expect.any(String)], [second]]);
    });

    it("a run another extension's custom message started reports bus mail like a prompt", async () => {
      const { alice, bob } = await pair({});
      const id = await mail(bob, "for the next turn");
      const other = { customType: "session-mail", content: "mail", display: true, details: {}, options: undefined };
      expect(reported(await alice.customRun(other))?.details.ids).toEqual([id]);
    });

    it("mail found during a run the user stopped is not raised after it, nor by a later poll: the next prompt reports it", async () => {
      const { alice, bob } = await pair({ wake: true });
      alice.context.idle = false;
      await alice.agentStart();
      const id = await mail(bob, "while you were busy");
      vi.advanceTimersByTime(pollMs);
      alice.context.idle = true;
      await alice.settle(true);
      expect(alice.wakes()).toEqual([]);
      vi.advanceTimersByTime(pollMs * 3);
      expect(alice.wakes()).toEqual([]);
      const notice = reported(await alice.prompt());
      expect(notice?.details).toMatchObject({ delivery: "next-turn", ids: [id] });
      // Mail after that is raised again as usual.
      await alice.agentStart();
      await alice.settle(false);
      await mail(bob, "later");
      vi.advanceTimersByTime(pollMs);
      expect(alice.wakes()).toHaveLength(1);
    });

    it("a join with wake: false (or a plain join) sets the mode back to the next turn", async () => {
      const { alice, bob } = await pair({ wake: true });
      await alice.tool({ action: "join" });
      await mail(bob, "no wake now");
      vi.advanceTimersByTime(pollMs * 2);
      expect(alice.wakes()).toEqual([]);
      expect(reported(await alice.prompt())?.details.delivery).toBe("next-turn");
    });
  });

  describe("the handoff notice", () => {
    it("is headlined as the work it assigns, keeps 800 characters of it, and says the work is yours", async () => {
      const { alice, bob } = await pair({ wake: true });
      const card = `${"a".repeat(799)}Z${"b".repeat(300)}`;
      await bob.tool({ action: "claim", paths: ["src/billing"] });
      const offered = await mail(bob, card, { kind: "handoff", paths: ["src/billing"] });
      await mail(bob, "fyi");
      vi.advanceTimersByTime(pollMs);
      const [wake] = alice.wakes();
      const content = String(wake?.content);
      expect(content.split("\n")[0]).toBe("[session-bus] 1 handoff and 1 other message on the bus.");
      expect(content).toContain(
        `handoff from integrator (0190a1a1-8) · offers the claims on src/billing: take them with session({action:"accept", id:"${offered}"})\n  ${"a".repeat(799)}Z …`,
      );
      expect(content).not.toContain("Zb");
      expect(content).toContain("message from integrator (0190a1a1-8)\n  fyi");
      expect(content.split("\n").at(-1)).toBe(
        'A handoff assigns work, and the work is yours: read it with session({action:"inbox"}), record the plan, and start.',
      );
      expect(wake?.details).toMatchObject({ headline: "1 handoff and 1 other message on the bus" });
      // Its renderer draws the headline, and the rows when expanded.
      const theme = { fg: (_c: string, s: string) => s, bg: (_c: string, s: string) => s, bold: (s: string) => s };
      const render = alice.pi.renderers.get("session-bus");
      const collapsed = render?.(wake as never, { expanded: false, outputPad: 0 } as never, theme as never);
      expect(collapsed?.render(120)[0]?.trim()).toBe("bus · 1 handoff and 1 other message on the bus");
      const expanded = render?.(wake as never, { expanded: true, outputPad: 0 } as never, theme as never);
      expect(expanded?.render(2_000).some((line) => line.includes("Z …"))).toBe(true);
    });

    it("a plain message's preview keeps 200 characters", async () => {
      const { alice, bob } = await pair({});
      await mail(bob, `${"m".repeat(200)}X`);
      const content = reported(await alice.prompt())?.content ?? "";
      expect(content).toContain(`  ${"m".repeat(200)} …`);
      expect(content).not.toContain("X");
      expect(content.split("\n")[0]).toBe("[session-bus] 1 new message on the bus.");
    });
  });

  describe("context", () => {
    it("keeps a notice while its mail waits, drops it once inbox consumed that mail, and leaves the rest alone", async () => {
      const { alice, bob } = await pair({});
      await mail(bob, "one");
      const notice = reported(await alice.prompt());
      const user = { role: "user", content: "hello", timestamp: 1 };
      const custom = { role: "custom", ...notice, timestamp: 2 };
      const other = { role: "custom", customType: "something-else", content: "x", display: true, timestamp: 3 };
      const messages = [user, custom, other];
      expect(await alice.modelContext(messages)).toBe(messages);
      await alice.tool({ action: "inbox" });
      expect(await alice.modelContext(messages)).toEqual([user, other]);
      // A projection per request: the list handed in is untouched, and the next request prunes again.
      expect(messages).toHaveLength(3);
      expect(await alice.modelContext(messages)).toEqual([user, other]);
    });

    it("keeps a notice whose mail is only partly consumed", async () => {
      const { alice, bob } = await pair({});
      await mail(bob, "one");
      await mail(bob, "two");
      const notice = reported(await alice.prompt());
      expect(notice?.details.ids).toHaveLength(2);
      await alice.tool({ action: "inbox", limit: 1 });
      const messages = [{ role: "custom", ...notice, timestamp: 1 }];
      expect(await alice.modelContext(messages)).toBe(messages);
      await alice.tool({ action: "inbox" });
      expect(await alice.modelContext(messages)).toEqual([]);
    });
  });
});

describe("with real timers", () => {
  it("a wake reaches an idle session on the watcher's hint, well before the 2 s poll", async () => {
    const { alice, bob } = await pair({ wake: true });
    const sentAt = Date.now();
    await mail(bob, "quick");
    await waitFor(() => alice.wakes().length === 1, "the wake", pollMs - 500);
    expect(Date.now() - sentAt).toBeLessThan(pollMs - 500);
  });
});
