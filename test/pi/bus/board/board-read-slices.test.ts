// `/sessions` over a full claims/ folder (20,000 claims, as many as one listing holds) on the real file
// system: the open board reads it a page per turn of Pi's loop, never the whole folder in one turn
// (that held the loop for 70 ms and more), and draws only whole snapshots: the Claims tab shows none
// until the read is whole, then every claim, never a part.
import { Dir } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createFsBusStore } from "../../../../src/adapters/fs/bus/fs-bus-store.js";
import { cryptoEntropy } from "../../../../src/adapters/node/crypto-entropy.js";
import { nodeFs } from "../../../../src/adapters/node/node-fs.js";
import { claimsListedMax, claimsPageEntriesMax } from "../../../../src/domain/bus/limits.js";
import { ids, useBusSandbox } from "../bus-session.js";
import { keybindings, plainTheme } from "./board-harness.js";

const sandbox = useBusSandbox();

afterEach(() => {
  vi.restoreAllMocks();
});

/** Bounds the wait for the read to end: ten times the pages a full folder takes. */
const turnsMax = (10 * claimsListedMax) / claimsPageEntriesMax;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The count the Claims tab shows. */
function claimsShown(screen: readonly string[]): number {
  const count = /Claims \((\d+)\)/.exec(screen.join("\n"))?.[1];
  if (count === undefined) throw new Error(`no Claims tab on the screen:\n${screen.join("\n")}`);
  return Number(count);
}

type BoardFactory = (
  tui: unknown,
  theme: unknown,
  kb: unknown,
  done: (value: undefined) => void,
) => { render(width: number): string[]; dispose(): void };

describe("the board over a full claims/ folder", () => {
  it("reads it a page per turn of the loop and draws only the whole snapshot", async () => {
    const alice = await sandbox.started(ids.alice, { mode: "tui" });
    const bob = await sandbox.started(ids.bob);
    await bob.tool({ action: "join", label: "integrator" });
    await bob.tool({ action: "claim", paths: ["src/api"] });
    const { joinToken } = sandbox.records().find((r) => r.id === ids.bob) as { joinToken: string };
    const root = sandbox.busDir() ?? "";
    const store = createFsBusStore({ fs: nodeFs, root, uid: process.getuid?.() ?? 0, entropy: cryptoEntropy });
    const keys = Array.from({ length: claimsListedMax - 1 }, (_, k) => `big/d${Math.floor(k / 100)}/f${k}.ts`);
    for (let at = 0; at < keys.length; at += 1_000) {
      store.createClaims(ids.bob, joinToken, "integrator", keys.slice(at, at + 1_000))._unsafeUnwrap();
    }
    await alice.command();
    const factory = alice.context.customs[0]?.factory as BoardFactory;

    // Every entry read from claims/ through a folder handle, counted per turn of the loop.
    const readSync = Dir.prototype.readSync;
    let read = 0;
    vi.spyOn(Dir.prototype, "readSync").mockImplementation(function (this: Dir) {
      if (this.path.endsWith("/claims")) read++;
      return readSync.call(this);
    });
    const perTurn: number[] = [];
    const shown: number[] = [];
    const board = factory(
      { terminal: { rows: 30, columns: 120 }, requestRender: vi.fn() },
      plainTheme,
      keybindings,
      vi.fn(),
    );
    try {
      perTurn.push(read);
      shown.push(claimsShown(board.render(120)));
      while (shown.at(-1) === 0 && perTurn.length < turnsMax) {
        const before = read;
        await nextTurn();
        perTurn.push(read - before);
        shown.push(claimsShown(board.render(120)));
      }
    } finally {
      board.dispose();
    }

    expect(Math.max(...perTurn)).toBeLessThanOrEqual(claimsPageEntriesMax);
    expect(perTurn.filter((entries) => entries > 0).length).toBeGreaterThanOrEqual(
      claimsListedMax / claimsPageEntriesMax,
    );
    expect(new Set(shown)).toEqual(new Set([0, claimsListedMax]));
  });
});
