// `/sessions` by mode: the board as a full-size overlay in the TUI, the compact listing as a
// notification in rpc and on stderr in print and json (where Pi's notify does nothing). It takes
// no argument, joins nothing and prunes nothing.
import { readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { keybindings, keys, plainTheme } from "./board/board-harness.js";
import type { BusSession } from "./bus-session.js";
import { ids, type Mode, useBusSandbox } from "./bus-session.js";

const sandbox = useBusSandbox();

let stderr: string[] = [];
beforeEach(() => {
  stderr = [];
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** alice in `mode`, off the bus; bob joined as integrator, holding src/api. */
async function pair(mode: Mode): Promise<{ alice: BusSession; bob: BusSession }> {
  const alice = await sandbox.started(ids.alice, { mode });
  const bob = await sandbox.started(ids.bob);
  await bob.tool({ action: "join", label: "integrator" });
  await bob.tool({ action: "claim", paths: ["src/api"] });
  return { alice, bob };
}

const listing = [
  "This session has not joined the bus.",
  "Sessions (1):",
  `  integrator (${ids.bob}): active, next turn, 0 unread, claims: src/api`,
  "Claims (1):",
  "  src/api: integrator",
].join("\n");

describe("/sessions outside the TUI", () => {
  it("in rpc mode notifies the listing, and joins nobody", async () => {
    const { alice } = await pair("rpc");
    await alice.command();
    expect(alice.context.notices).toEqual([{ text: listing, level: "info" }]);
    expect(stderr).toEqual([]);
    expect(alice.context.customs).toEqual([]);
    expect(sandbox.records().map((r) => r.id)).toEqual([ids.bob]);
    expect(alice.labels).toEqual([]);
  });

  it.each(["print", "json"] as const)("in %s mode writes the listing to stderr", async (mode) => {
    const { alice } = await pair(mode);
    await alice.command();
    expect(stderr).toEqual([`${listing}\n`]);
    expect(alice.context.notices).toEqual([]);
    expect(sandbox.records().map((r) => r.id)).toEqual([ids.bob]);
  });

  it("warns on an argument, where the person will see it, and lists all the same", async () => {
    const { alice } = await pair("rpc");
    await alice.command("join me");
    expect(alice.context.notices).toEqual([
      { text: "/sessions takes no arguments.", level: "warning" },
      { text: listing, level: "info" },
    ]);
    const carol = await sandbox.started(ids.carol, { mode: "print" });
    await carol.command("--all");
    expect(stderr[0]).toBe("/sessions takes no arguments.\n");
    expect(stderr[1]).toMatch(/^This session has not joined the bus\.\n/);
  });

  it("lists this session once it joined, its claims marked as its own", async () => {
    const { alice } = await pair("rpc");
    await alice.tool({ action: "join", label: "billing-core" });
    await alice.tool({ action: "claim", paths: ["docs"] });
    await alice.command();
    expect(alice.context.notices.at(-1)?.text.split("\n")).toEqual([
      "This session: billing-core, listening: next turn.",
      "Sessions (2):",
      `  billing-core (you) (${ids.alice}): active, next turn, 0 unread, claims: docs`,
      `  integrator (${ids.bob}): active, next turn, 0 unread, claims: src/api`,
      "Claims (2):",
      "  docs: billing-core (you)",
      "  src/api: integrator",
    ]);
  });

  it("prunes nothing: a record past the session TTL stays on disk until status prunes it", async () => {
    const { alice } = await pair("rpc");
    const record = join(sandbox.busDir() ?? "", "sessions", `${ids.bob}.json`);
    // Its process ended (another start time on its pid): a live one would need a reader to watch
    // it stay silent for the TTL before it expired.
    writeFileSync(record, JSON.stringify({ ...JSON.parse(readFileSync(record, "utf8")), started: "1" }));
    const old = new Date(Date.now() - 11 * 60_000);
    utimesSync(record, old, old);
    await alice.command();
    expect(alice.context.notices.at(-1)?.text).toBe(
      "This session has not joined the bus.\nNobody has joined the bus on this repository yet.\nClaims: none.",
    );
    expect(sandbox.records().map((r) => r.id)).toEqual([ids.bob]);
    expect(sandbox.claims()).toHaveLength(1);
    await alice.tool({ action: "status" });
    expect(sandbox.records()).toEqual([]);
    expect(sandbox.claims()).toEqual([]);
  });

  it("says the bus is not running when it cannot start, on stderr in print mode", async () => {
    const alice = await sandbox.started(ids.alice, { mode: "print", cwd: join(sandbox.dir, "no-such-folder") });
    await alice.command();
    expect(stderr).toEqual(["The bus is not running in this session.\n"]);
  });
});

describe("/sessions in the TUI", () => {
  it("opens the board as a full-size centered overlay and prints nothing", async () => {
    const { alice } = await pair("tui");
    await alice.command();
    expect(alice.context.customs).toHaveLength(1);
    expect(alice.context.customs[0]?.options).toEqual({
      overlay: true,
      overlayOptions: { width: "100%", maxHeight: "100%", anchor: "center" },
    });
    expect(alice.context.notices).toEqual([]);
    expect(stderr).toEqual([]);
    expect(sandbox.records().map((r) => r.id)).toEqual([ids.bob]);
  });

  it("the overlay's component is the board over this bus, and Esc closes it", async () => {
    const { alice } = await pair("tui");
    await alice.command();
    const factory = alice.context.customs[0]?.factory as (
      tui: unknown,
      theme: unknown,
      kb: unknown,
      done: (value: undefined) => void,
    ) => { render(width: number): string[]; handleInput(data: string): void; dispose(): void };
    const done = vi.fn();
    const tui = { terminal: { rows: 30, columns: 100 }, requestRender: vi.fn() };
    const board = factory(tui, plainTheme, keybindings, done);
    try {
      expect(board.render(100).join("\n")).toContain("integrator");
      board.handleInput(keys.escape);
      expect(done).toHaveBeenCalledWith(undefined);
    } finally {
      board.dispose();
    }
  });
});

describe("the board's Inbox tab", () => {
  it("counts every unread message, as this session's row does, when more than the 50 previewed wait", async () => {
    const alice = await sandbox.started(ids.alice, { mode: "tui" });
    const bob = await sandbox.started(ids.bob);
    await alice.tool({ action: "join", label: "billing-core", listen: false });
    await bob.tool({ action: "join", label: "integrator" });
    for (let i = 0; i < 60; i++) await bob.tool({ action: "send", to: "billing-core", text: `m${i}` });
    await alice.command();
    const factory = alice.context.customs[0]?.factory as (...args: unknown[]) => {
      render(width: number): string[];
      dispose(): void;
    };
    const board = factory(
      { terminal: { rows: 30, columns: 120 }, requestRender: vi.fn() },
      plainTheme,
      keybindings,
      vi.fn(),
    );
    try {
      const screen = board.render(120);
      expect(screen.join("\n")).toContain("60 unread");
      expect(screen[1]).toContain("Inbox (60)");
    } finally {
      board.dispose();
    }
  });
});
