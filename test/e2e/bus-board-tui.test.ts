// Issue 11 §4 and §6 in Pi's real TUI (a private tmux server, 100×30): `/sessions` opens the board
// as a full-size overlay; a peer (an RPC session in the same git repository) joins and claims, and
// the board shows it with no key pressed (its 1 s poll); Tab, Enter/Esc, `x` refused on a peer's
// claim, `w` joins this session, `x` on its own claim asks y/N (`n` keeps, `y` releases, on disk
// too), PgDn/PgUp and g/G move in a list, Esc (and Ctrl+C) closes the board and Pi stays up. Every
// wait polls the screen with a bound; afterAll ends each process by its pid, even after a failure.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, e2ePaths, type PiSession, type Sandbox, startPi } from "./harness/rpc-session.js";
import { startTuiPane, type TmuxPane } from "./harness/tmux-pane.js";

const board = { id: "0190e5e5-b0a7-7000-8000-0000000000b0", name: "board" };
const peer = { id: "0190e5e5-9ee7-7000-8000-000000000009", label: "peer" };
/** A session that runs the mailbox in the same repository and never joins the bus. */
const mailOnly = { id: "0190e6e6-9ee7-7000-8000-00000000000a", name: "scribe" };

/** A Pi start with a cold transpile cache can take 20 s and more on a loaded 2-core machine. */
const startTimeoutMs = 90_000;
const runTimeoutMs = 20_000;
/** A change on disk reaches the open board within one poll (1 s); the rest is slack for load. */
const pollSeenMs = 5_000;
/** A key's repaint takes 10–30 ms; this bounds a wait under load. */
const keyMs = 5_000;
/** Pi tells a lone Esc from Alt+key after a short timeout: the next key waits this long. */
const escSettleMs = 100;
/** How long a screen must stay unchanged to count as a whole frame. */
const stableMs = 60;
const fileTimeoutMs = startTimeoutMs * 2;

/** Enough paths that the Claims list is longer than one page (the board's body is 30 − 2 − 4 rows). */
const many = Array.from({ length: 30 }, (_, i) => `lib/f${String(i + 1).padStart(2, "0")}.ts`);

const hasTmux = spawnSync("tmux", ["-V"], { stdio: "ignore", env: { PATH: "/usr/bin:/bin" } }).status === 0;
const title = hasTmux
  ? "the /sessions board in Pi's TUI"
  : "the /sessions board in Pi's TUI (skipped: tmux is not installed)";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const boardOpen = (s: string) => s.includes("Session bus · ");
/** The selected row of the open list: the line that starts with "> ". */
const selected = (s: string) =>
  s
    .split("\n")
    .find((line) => line.startsWith("> "))
    ?.slice(2) ?? "";
const selectedStarts = (prefix: string) => (s: string) => selected(s).startsWith(prefix);

function gitInit(dir: string): void {
  execFileSync("git", ["init", "-q", dir], { env: { PATH: "/usr/bin:/bin", HOME: dir }, timeout: 10_000 });
  for (const folder of ["docs", "src", "lib"]) mkdirSync(join(dir, folder), { recursive: true });
  writeFileSync(join(dir, "docs", "README.md"), "docs\n");
}

describe.skipIf(!hasTmux)(title, () => {
  let sandbox: Sandbox;
  let peerProcess: PiSession | undefined;
  let pane: TmuxPane | undefined;

  /** The claim keys on disk, from the names `claims/<encoded key>~<owner>~<join token>`. */
  const claimsOnDisk = (): string[] => {
    const root = join(sandbox.agentDir, "session-bus");
    return readdirSync(root).flatMap((repo) =>
      readdirSync(join(root, repo, "claims"))
        .filter((name) => !name.startsWith("."))
        .map((name) => decodeURIComponent(name.split("~")[0] ?? "")),
    );
  };

  const tui = (): TmuxPane => {
    if (pane === undefined) throw new Error("the TUI pane did not start");
    return pane;
  };
  const peerPi = (): PiSession => {
    if (peerProcess === undefined) throw new Error("the peer did not start");
    return peerProcess;
  };

  /**
   * Waits until `match` holds on a screen that stays the same for a moment: Pi writes a frame line
   * by line, and a capture taken mid-frame can hold the new top and the old bottom.
   */
  const shows = async (match: (screen: string) => boolean, what: string, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const seen = await tui().waitFor(match, what, Math.max(0, deadline - Date.now()));
      await sleep(stableMs);
      // A screen that keeps changing (a clock on it) is taken as it is at the deadline.
      if (tui().screen() === seen || Date.now() > deadline) return seen;
    }
  };

  const openBoard = async () => {
    tui().type("/sessions");
    await shows((s) => s.includes("The sessions on this repository's bus"), "/sessions offered", keyMs);
    tui().keys("Enter");
    return shows(boardOpen, "the board", keyMs);
  };
  const pressEscape = async () => {
    tui().keys("Escape");
    await sleep(escSettleMs);
  };
  const toClaims = async () => {
    tui().keys("Tab");
    await shows((s) => s.includes("[Inbox ("), "the Inbox tab", keyMs);
    tui().keys("Tab");
    return shows((s) => s.includes("[Claims ("), "the Claims tab", keyMs);
  };
  const peerCalls = async (args: object) => {
    const run = await peerPi().prompt(`CALL_TOOL session ${JSON.stringify(args)}`, runTimeoutMs);
    const end = run.records.find((r) => r.type === "tool_execution_end");
    expect(end?.isError, JSON.stringify(end)).toBe(false);
  };

  beforeAll(async () => {
    sandbox = createSandbox();
    // One repository: the TUI session works in it, the peer too (its cwdFolder is the same folder).
    const repo = sandbox.cwdFor(board.id);
    gitInit(repo);
    pane = startTuiPane({ sandbox, sessionId: board.id, name: board.name, columns: 100, rows: 30 });
    // The peer runs the bus alone: the rows below are the bus's (a session of the mailbox alone is
    // listed too, by the last case).
    peerProcess = startPi({
      sandbox,
      sessionId: peer.id,
      cwdFolder: board.id,
      extensions: [e2ePaths.repoRoot],
      env: { PI_DISABLED_EXTENSIONS: "session-mail" },
    });
    await Promise.all([
      pane.waitFor((s) => s.includes("(auto)"), "Pi's footer", startTimeoutMs),
      peerProcess.request({ type: "get_state" }, startTimeoutMs),
    ]);
  }, fileTimeoutMs);

  afterAll(async () => {
    // Each by its pid (the pane's Pi, the tmux server, the peer), even when a step failed.
    const ended = await Promise.allSettled([pane?.close(), peerProcess?.close()]);
    await sandbox?.cleanup();
    for (const result of ended) if (result.status === "rejected") throw result.reason;
  }, fileTimeoutMs);

  it("opens the board as an overlay with /sessions; an empty bus says nobody has joined", async () => {
    const shown = await openBoard();
    expect(shown).toContain("Session bus · this session has not joined · w joins it and listens");
    expect(shown).toContain("[Sessions (0)]");
    expect(shown).toContain("Nobody has joined the bus on this repository yet.");
    // Not listening: w would start a next-turn watch (wake is the session tool's to set).
    expect(shown).toContain("Tab/Shift+Tab switch · ↑↓ PgUp/PgDn move · Enter open · w listen next turn · x release");
  });

  it("shows a peer that joins and claims without a key press (the 1 s poll)", async () => {
    await peerCalls({ action: "join", label: peer.label });
    const joined = await shows((s) => s.includes("[Sessions (1)]"), "the peer's row", pollSeenMs);
    expect(selected(joined)).toMatch(/^peer {2}active {2}next turn {2}0 unread {2}0 claims$/);
    await peerCalls({ action: "claim", paths: ["src"] });
    const claimed = await shows((s) => s.includes("Claims (1)"), "the peer's claim", pollSeenMs);
    expect(selected(claimed)).toMatch(/^peer .* 1 claim$/);
  });

  it("moves to Claims with Tab; Enter opens the row's pane and Esc goes back", async () => {
    const claims = await toClaims();
    expect(selected(claims)).toBe("src  peer");
    tui().keys("Enter");
    const opened = await shows((s) => s.includes("Claim src"), "the claim's pane", keyMs);
    expect(opened).toMatch(/owner {6}peer\n/);
    expect(opened).toContain(`owner id   ${peer.id}`);
    expect(opened).toContain("Held by peer; only its owner releases it.");
    expect(opened).toContain("g/G top/end · w listen next turn · Esc back");
    await pressEscape();
    const back = await shows((s) => selected(s) === "src  peer", "the Claims list again", keyMs);
    expect(back).toContain("[Claims (1)]");
    expect(back).not.toContain("Claim src");
  });

  it("refuses x on a peer's claim", async () => {
    tui().keys("x");
    const refused = await shows((s) => s.includes("src is held by peer"), "the refusal", keyMs);
    expect(refused).toContain("src is held by peer; only its owner releases it");
    expect(refused).not.toContain("(y/N)");
    expect(claimsOnDisk()).toEqual(["src"]);
  });

  it("joins this session with w: it is listed, listening at the next turn", async () => {
    tui().keys("w");
    const joined = await shows(
      (s) => s.includes("this session: board · listening: next turn"),
      "this session joined",
      keyMs,
    );
    expect(joined).toContain("board: listening: mail is reported at the next turn.");
    expect(joined).toContain("Enter open · w stop listening · x release");
    tui().keys("Tab");
    const sessions = await shows((s) => s.includes("[Sessions (2)]"), "two sessions", keyMs);
    // The selection stays on the row it was on (peer); this session's row sorts before it. The
    // columns line up: the label column is as wide as "board (you)"; the mailbox's column says this
    // session is idle, and is blank for the peer, which runs the bus alone.
    expect(sessions).toMatch(/^ {2}board \(you\) {2}active {2}idle {2}next turn {2}0 unread {2}0 claims$/m);
    expect(sessions).toMatch(/^> peer {9}active {8}next turn {2}0 unread {2}1 claim$/m);
  });

  it("x on its own claim asks y/N: n keeps it, y releases it (and its file)", async () => {
    await pressEscape();
    await shows((s) => !boardOpen(s), "the board closed", keyMs);
    tui().type('CALL_TOOL session {"action":"claim","paths":["docs"]}');
    tui().keys("Enter");
    await shows((s) => s.includes("tool said: Claimed docs."), "the claim", runTimeoutMs);
    expect(claimsOnDisk().sort()).toEqual(["docs", "src"]);
    await openBoard();
    const claims = await toClaims();
    expect(claims).toContain("[Claims (2)]");
    // Sessions sort by label, so this session's claim comes first.
    expect(selected(claims)).toBe("docs  board (you)");
    tui().keys("x");
    await shows((s) => s.includes("Release docs? (y/N)"), "the question", keyMs);
    tui().keys("n");
    const kept = await shows((s) => s.includes("Kept docs."), "kept", keyMs);
    expect(kept).toContain("[Claims (2)]");
    expect(claimsOnDisk().sort()).toEqual(["docs", "src"]);
    tui().keys("x");
    await shows((s) => s.includes("Release docs? (y/N)"), "the question again", keyMs);
    tui().keys("y");
    const released = await shows((s) => s.includes("Released docs."), "released", keyMs);
    expect(released).toContain("[Claims (1)]");
    expect(selected(released)).toBe("src  peer");
    expect(claimsOnDisk()).toEqual(["src"]);
  });

  it("moves a page with PgDn/PgUp and to the ends with g/G", async () => {
    // 31 claims, 24 rows to a page: lib/f01…lib/f30, then src.
    await peerCalls({ action: "claim", paths: many });
    await shows((s) => s.includes("[Claims (31)]"), "the peer's new claims", pollSeenMs);
    tui().keys("g");
    const top = await shows(selectedStarts("lib/f01.ts"), "the first row", keyMs);
    expect(top).not.toMatch(/^ {2}src {2}peer$/m);
    tui().keys("NPage");
    // The window follows the selection: f25 is its last row, so f01 scrolled off.
    const down = await shows(selectedStarts("lib/f25.ts"), "a page down", keyMs);
    expect(down).toMatch(/^ {2}lib\/f02\.ts {2}peer$/m);
    expect(down).not.toContain("lib/f01.ts");
    tui().keys("PPage");
    await shows(selectedStarts("lib/f01.ts"), "a page up", keyMs);
    tui().keys("G");
    // The window holds lib/f08.ts … src: the path column is as wide as lib/f08.ts.
    const bottom = await shows((s) => selected(s) === "src         peer", "the last row", keyMs);
    expect(bottom).not.toContain("lib/f07.ts");
    tui().keys("Up");
    await shows(selectedStarts("lib/f30.ts"), "one row up", keyMs);
  });

  it("closes the board with Esc, and Pi stays up", async () => {
    await pressEscape();
    const closed = await shows((s) => !boardOpen(s), "the board closed", keyMs);
    expect(closed).toContain("(auto)");
    tui().type("still here");
    tui().keys("Enter");
    await shows((s) => s.includes("echo: still here"), "Pi's answer", runTimeoutMs);
  });

  it("closes the board on Ctrl+C too (the board gets the key), and Pi stays up", async () => {
    await openBoard();
    tui().keys("C-c");
    await shows((s) => !boardOpen(s), "the board closed", keyMs);
    tui().type("still up");
    tui().keys("Enter");
    await shows((s) => s.includes("echo: still up"), "Pi's answer", runTimeoutMs);
  });

  it("marks the claim a peer's write took as observed, and the claim it offers this session", async () => {
    const run = await peerPi().prompt('CALL_TOOL write {"path":"notes.md","content":"draft\\n"}', runTimeoutMs);
    expect(run.records.find((r) => r.type === "tool_execution_end")?.isError).toBe(false);
    await peerCalls({ action: "send", to: board.name, kind: "handoff", text: "Take src.", paths: ["src"] });
    await openBoard();
    const claims = await toClaims();
    expect(claims).toContain("[Claims (32)]");
    tui().keys("G");
    const bottom = await shows((s) => selectedStarts("src")(s), "the last row", keyMs);
    expect(bottom).toMatch(/^ {2}notes\.md {4}peer {2}observed$/m);
    expect(selected(bottom)).toBe("src         peer  offered to board");
    tui().keys("Enter");
    const pane = await shows((s) => s.includes("Claim src"), "the claim's pane", keyMs);
    expect(pane).toMatch(/^offered to board \(/m);
    await pressEscape();
    await pressEscape();
    await shows((s) => !boardOpen(s), "the board closed", keyMs);
  });

  it("lists a session of this repository that uses the mailbox alone, busy or idle, as mail only", async () => {
    const lone = startPi({
      sandbox,
      sessionId: mailOnly.id,
      name: mailOnly.name,
      cwdFolder: board.id,
      extensions: [e2ePaths.repoRoot],
    });
    try {
      await lone.request({ type: "get_state" }, startTimeoutMs);
      await openBoard();
      const listed = await shows((s) => s.includes("[Sessions (3)]"), "three sessions", keyMs);
      expect(listed).toMatch(/^ {2}scribe {7}mail only {2}idle$/m);
      await pressEscape();
      await shows((s) => !boardOpen(s), "the board closed", keyMs);
    } finally {
      await lone.close();
    }
  });
});
