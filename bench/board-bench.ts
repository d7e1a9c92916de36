// The /sessions board at the size the store accepts: 20,000 claims (one listing of claims/ holds no
// more), most held by one live session, beside the bench bus's 20 peers and their mail. The real
// board component polls the real engine once a second, with its Claims tab open, reading in steps as
// /sessions does (a page of claims/ per turn of the loop); a 1 ms libuv timer records the longest
// time Pi's loop would run nothing else (goal ≤ 50 ms).
import { readdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { cryptoEntropy } from "../src/adapters/node/crypto-entropy.js";
import { createProcessProbe } from "../src/adapters/node/proc-probe.js";
import type { SessionRecord } from "../src/domain/bus/bus-files.js";
import { claimsListedMax } from "../src/domain/bus/limits.js";
import { createBoard } from "../src/pi/bus/board/board.js";
import { readBoardSnapshot, readBoardSnapshotSteps } from "../src/pi/bus/board/board-read.js";
import { freshBus } from "./bus-bench.js";
import { median, nowUs, round } from "./stats.js";

export interface BoardFigures {
  claims: number;
  sessions: number;
  /** Files waiting in this session's inbox (its Inbox tab previews the front). */
  unread: number;
  polls: number;
  /** The longest stall of the loop while the board was open, its first read included (goal ≤ 50 ms). */
  longestBlockMs: number;
  /** Per poll: the snapshot read (its steps summed), and one render of the screen. */
  readMedianMs: number;
  readMaxMs: number;
  /** The longest single step of a read (one turn of the loop), and the steps one read took. */
  stepMaxMs: number;
  stepsPerRead: number;
  renderMedianMs: number;
  renderMaxMs: number;
  /** One readdirSync of claims/, the least any reader of every claim pays: tells the machine from the board. */
  listingFloorMs: number;
  loadAverage: number;
}

const hogId = "019ad0e0-0000-7000-8000-0000000000fd";
const columns = 120;
const rows = 40;
const pollMs = 1000;
const claimsPerCall = 1000;

/** A live session (this process's pid and start token) holding every claim the bench bus lacks. */
function addHog(bus: ReturnType<typeof freshBus>): void {
  const { pid, started, bootId, pidNamespace } = createProcessProbe().self();
  const record: SessionRecord = {
    id: hogId,
    label: "hog",
    pid,
    ...(started === undefined ? {} : { started }),
    ...(bootId === undefined ? {} : { bootId }),
    ...(pidNamespace === undefined ? {} : { pidNamespace }),
    joinToken: cryptoEntropy.uuid(),
    cwd: bus.repo,
    root: bus.repo,
    armed: true,
    wake: false,
    joinedAt: new Date().toISOString(),
  };
  if (bus.store.writeRecord(record).isErr()) throw new Error("bench setup failed: the hog's record");
  const missing = claimsListedMax - readdirSync(join(bus.root, "claims")).length;
  const keys = Array.from({ length: missing }, (_, k) => `big/d${Math.floor(k / 100)}/file-${k}.ts`);
  for (let at = 0; at < keys.length; at += claimsPerCall) {
    const made = bus.store.createClaims(hogId, record.joinToken, "hog", keys.slice(at, at + claimsPerCall));
    if (made.isErr()) throw new Error(`bench setup failed: claims (${made.error.kind})`);
  }
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function benchBoard(polls: number): Promise<BoardFigures> {
  const bus = freshBus("board");
  addHog(bus);
  const claims = readdirSync(join(bus.root, "claims")).length;
  const reads: number[] = [];
  const steps: number[] = [];
  const renders: number[] = [];
  const actions = {
    snapshot: () => readBoardSnapshot(bus.engine),
    readSteps() {
      const read = readBoardSnapshotSteps(bus.engine);
      let spentMs = 0;
      return {
        step() {
          const t0 = nowUs();
          const snapshot = read.step();
          const ms = (nowUs() - t0) / 1000;
          steps.push(ms);
          spentMs += ms;
          if (snapshot !== undefined) reads.push(spentMs);
          return snapshot;
        },
        cancel: () => read.cancel(),
      };
    },
    toggleListening: () => ({ ok: true, message: "" }),
    release: () => ({ ok: true, message: "" }),
  };
  const theme = { fg: (_color: string, text: string) => text, bold: (text: string) => text };
  // Pi renders on a later turn of the loop after requestRender, as here.
  const tui = { terminal: { rows, columns }, requestRender: () => setImmediate(draw) };
  const keybindings = { matches: (data: string, id: string) => data === "\t" && id === "tui.input.tab" };
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  await wait(50);
  const board = createBoard(tui, theme, keybindings, () => {}, actions);
  function draw(): void {
    const t0 = nowUs();
    board.render(columns);
    renders.push((nowUs() - t0) / 1000);
  }
  // The Claims tab: its list is the one that holds 20,000 rows.
  board.handleInput("\t");
  board.handleInput("\t");
  draw();
  await wait(polls * pollMs + pollMs / 2);
  delay.disable();
  board.dispose();
  const sessions = bus.engine
    .snapshot()
    .map((view) => view.sessions.length)
    .unwrapOr(0);
  const unread = bus.engine
    .peek(1)
    .map((preview) => preview.files)
    .unwrapOr(0);
  bus.engine.shutdown("quit");
  const listings = Array.from({ length: 5 }, () => {
    const t0 = nowUs();
    readdirSync(join(bus.root, "claims"));
    return (nowUs() - t0) / 1000;
  });
  return {
    claims,
    sessions,
    unread,
    polls: reads.length - 1,
    longestBlockMs: round(delay.max / 1e6, 1),
    readMedianMs: round(median(reads), 2),
    readMaxMs: round(Math.max(...reads), 2),
    stepMaxMs: round(Math.max(...steps), 2),
    stepsPerRead: round(steps.length / reads.length, 1),
    renderMedianMs: round(median(renders), 2),
    renderMaxMs: round(Math.max(...renders), 2),
    listingFloorMs: round(median(listings), 2),
    loadAverage: round(loadavg()[0]!, 2),
  };
}
