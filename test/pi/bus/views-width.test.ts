// Pi's TUI stops drawing on a line wider than the terminal ("Every rendered line must fit within the
// supplied width", docs/tui.md): the session tool's call line and the bus notice measure columns as
// the terminal draws them, wide characters and emoji included, checked with pi-tui's own measure.
import { visibleWidth } from "@earendil-works/pi-tui";
import { describe, expect, it } from "vitest";
import { ids, useBusSandbox } from "./bus-session.js";

const sandbox = useBusSandbox();
const theme = { fg: (_c: string, s: string) => s, bg: (_c: string, s: string) => s, bold: (s: string) => s };
const widest = (lines: readonly string[]) => Math.max(...lines.map((line) => visibleWidth(line)));

describe("the bus's views fit the width Pi gives them", () => {
  it("the call line of a claim on paths in wide characters", async () => {
    const alice = await sandbox.started(ids.alice);
    const args = {
      action: "claim",
      paths: ["docs/设计/用户认证模块/接口说明.md", "docs/设计/用户认证模块/数据库设计.md"],
    };
    const view = alice.pi.tools.get("session")?.renderCall?.(args as never, theme as never, {} as never);
    expect(widest(view?.render(80) ?? [])).toBeLessThanOrEqual(80);
    expect(view?.render(80).join("")).toContain("设计");
  });

  it("a notice, expanded, with a peer's emoji", async () => {
    const alice = await sandbox.started(ids.alice);
    const content = `[session-bus] 1 new message on the bus.\nmessage from x (y)\n  ${"🚀".repeat(60)}`;
    const render = alice.pi.renderers.get("session-bus");
    const view = render?.(
      { content, details: { ids: ["a"] } } as never,
      { expanded: true, outputPad: 1 } as never,
      theme as never,
    );
    const lines = view?.render(80) ?? [];
    expect(lines.join("")).toContain("🚀");
    expect(widest(lines)).toBeLessThanOrEqual(80);
  });
});
