// Asks that would close a wait cycle, between real `pi --mode rpc` processes: a chain of asks
// bee → cat → ant whose last link (ant asking bee) is refused at once, naming the session between,
// and three sessions asking each other in a ring at the same moment, of which at least one is
// refused. Either way every ask ends within seconds, where a closed cycle would wait out each
// ask's 10-minute timeout.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RpcRecord, toolEnd } from "./harness/rpc-records.js";
import { createSandbox, type PiSession, type Sandbox, unexpectedStderr } from "./harness/rpc-session.js";
import {
  notices,
  readBox,
  readRunningRecord,
  runTimeoutMs,
  startMailSessions,
  startTimeoutMs,
  waitUntil,
} from "./mail-support.js";

const ant = { id: "0190a1a1-2222-7000-8000-0000000000a1", name: "ant" };
const bee = { id: "0190b2b2-2222-7000-8000-0000000000b2", name: "bee" };
const cat = { id: "0190c3c3-2222-7000-8000-0000000000c3", name: "cat" };
const everyone = [ant, bee, cat];

const fileTimeoutMs = startTimeoutMs * 2;
/** A ring of asks settles in seconds; a closed cycle would hold each ask for its 10-minute timeout. */
const ringSettledMs = 60_000;
const ringRounds = 3;

const askCall = (to: string, message: string) => `CALL_TOOL session_mail_ask ${JSON.stringify({ to, message })}`;
const askEnds = (pi: PiSession, since: number) =>
  pi.events
    .slice(since)
    .map(toolEnd)
    .filter((end) => end?.toolName === "session_mail_ask");
const isCycleRefusal = (text: string) => text.startsWith("Refused: ") && /would (deadlock|close the loop)/.test(text);

describe("session-mail between real Pi RPC sessions: asks that would close a wait cycle", () => {
  let sandbox: Sandbox;
  let sessions: PiSession[] = [];

  /** Every session idle and waiting on nobody, by their running records. */
  const allIdle = (what: string) =>
    waitUntil(
      () =>
        everyone.every((s) => {
          const record = readRunningRecord(sandbox, s.id);
          return record?.state === "idle" && record.waitingOn === "";
        })
          ? true
          : undefined,
      { timeoutMs: ringSettledMs, what, alive: sessions },
    );

  beforeAll(async () => {
    sandbox = createSandbox();
    sessions = await startMailSessions(sandbox, everyone);
  }, fileTimeoutMs);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, fileTimeoutMs);

  it(
    "refuses the ask that would close a chain of three, naming the session between, and every ask ends",
    async () => {
      const [a, b, c] = sessions as [PiSession, PiSession, PiSession];
      const marks = sessions.map((pi) => pi.mark());
      // bee asks cat; cat's model asks ant; ant's model asks bee, which waits on cat, which waits on ant.
      const antAsksBee = askCall("bee", "are we going round in circles?");
      const catAsksAnt = askCall("ant", `cat needs ant\n${antAsksBee}`);
      expect(
        (await b.request({ type: "prompt", message: askCall("cat", `bee needs cat\n${catAsksAnt}`) })).success,
      ).toBe(true);
      const startedAt = performance.now();
      const antEnd = await a.waitFor((r: RpcRecord) => toolEnd(r)?.toolName === "session_mail_ask", runTimeoutMs * 2, {
        since: marks[0] ?? 0,
        what: "ant's ask of bee",
      });
      const refusal = toolEnd(antEnd);
      expect(refusal?.isError).toBe(true);
      expect(refusal?.text).toBe(
        `Refused: ${bee.id} waits on ${cat.id}, which waits on an answer from this session: asking ${bee.id} would close the loop, and each of you would wait until its ask times out. Answer what waits on this session first, or use session_mail_send.`,
      );
      // Nothing reached bee: the refusal wrote nothing.
      await allIdle("the chain unwound: ant answers cat, cat answers bee");
      expect(performance.now() - startedAt).toBeLessThan(ringSettledMs);
      expect(askEnds(c, marks[2] ?? 0)).toEqual([
        { toolName: "session_mail_ask", text: expect.stringContaining("from ant"), isError: false },
      ]);
      expect(askEnds(b, marks[1] ?? 0)).toEqual([
        { toolName: "session_mail_ask", text: expect.stringContaining("from cat"), isError: false },
      ]);
      expect(readBox(sandbox, bee.id, "cur").filter((m) => m.envelope.from === ant.id)).toEqual([]);
    },
    ringSettledMs * 2,
  );

  it(
    `lets no ring of three asks made at the same moment close (${ringRounds} rounds): at least one is refused, and all end`,
    async () => {
      const [a, b, c] = sessions as [PiSession, PiSession, PiSession];
      const ring: [PiSession, string][] = [
        [a, "bee"],
        [b, "cat"],
        [c, "ant"],
      ];
      for (let round = 0; round < ringRounds; round++) {
        const marks = sessions.map((pi) => pi.mark());
        const startedAt = performance.now();
        // The three prompts go out together: each session's ask is written within moments of the others.
        const sent = await Promise.all(
          ring.map(([pi, to]) => pi.request({ type: "prompt", message: askCall(to, `round ${round}: anyone free?`) })),
        );
        expect(sent.map((response) => response.success)).toEqual([true, true, true]);
        await Promise.all(
          sessions.map((pi, i) =>
            pi.waitFor((r: RpcRecord) => toolEnd(r)?.toolName === "session_mail_ask", ringSettledMs, {
              since: marks[i] ?? 0,
              what: `round ${round}: the ask of ${everyone[i]?.name}`,
            }),
          ),
        );
        await allIdle(`round ${round}: every ask ended`);
        expect(performance.now() - startedAt).toBeLessThan(ringSettledMs);
        const ends = sessions.map((pi, i) => askEnds(pi, marks[i] ?? 0)[0]);
        const refused = ends.filter((end) => end !== undefined && isCycleRefusal(end.text));
        console.log(`ring round ${round}: ${refused.length} of 3 asks refused`);
        expect(refused.length, `round ${round}: ${JSON.stringify(ends)}`).toBeGreaterThanOrEqual(1);
        // An ask that was not refused was answered: the ring was broken where it was refused.
        for (const end of ends) {
          if (end !== undefined && !isCycleRefusal(end.text)) expect(end).toMatchObject({ isError: false });
        }
      }
    },
    ringSettledMs * ringRounds * 2,
  );

  it("no session printed anything but JSON records, an extension error, or unexpected stderr", () => {
    for (const pi of sessions) {
      expect(pi.stdoutNonJson).toEqual([]);
      expect(unexpectedStderr(pi.stderr)).toEqual([]);
      expect(pi.events.filter((r) => r.type === "extension_error")).toEqual([]);
      expect(notices(pi.events).filter((n) => n.level !== "info")).toEqual([]);
    }
  });
});
