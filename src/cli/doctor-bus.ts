// The bus half of `switchboard doctor`: each bus folder under the agent dir, this user's and closed to
// others, and the records of members whose process is gone (removed by --fix, which frees their
// labels; their claims hold nothing already and go with the bus's next prune).
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { BusHost } from "../ports/bus/bus-host.js";
import { busKeys, createNodeBusReader, createNodeBusStore } from "../wiring/node-bus.js";
import type { CliContext } from "./command.js";
import { exists, type Finding, folderFinding, leftoverCount } from "./doctor-checks.js";

/** A bus folder and its subfolders (made 1700: sticky, owner only), each this user's and closed. */
function folderFindings(folder: string, fix: boolean): Finding[] {
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return [];
  }
  return [folder, ...entries.map((e) => join(folder, e))]
    .filter((path) => exists(path)?.isDirectory() === true)
    .flatMap((path) => folderFinding("bus", path, fix) ?? []);
}

/** Files a crash left in the bus's tmp/ (a claim or message half made): never read as either. */
function tmpFindings(folder: string, nowMs: number): Finding[] {
  const old = leftoverCount(join(folder, "tmp"), nowMs);
  if (old === 0) return [];
  const text = `${folder}: ${old} file(s) older than an hour in tmp/, left by writes a crash cut short; never read as mail or claims.`;
  return [
    {
      check: "tmp",
      status: "warn",
      text,
      fix: "the bus sweeps them at its next prune (a session joining or reading its status)",
    },
  ];
}

export function checkBus(ctx: CliContext, fix: boolean): Finding[] {
  const keys = busKeys(ctx.agentDir);
  if (keys.length === 0) return [{ check: "bus", status: "ok", text: "No bus yet under the agent dir." }];
  const findings: Finding[] = [];
  for (const key of keys) {
    const folder = join(ctx.agentDir, "session-bus", key);
    // Opening a bus closes its folders that are open to others, as every session's does: said here.
    const host: BusHost = {
      raiseTurn() {},
      warn(warning) {
        if (warning.kind !== "bus-opened") return;
        const mode = (warning.mode & 0o7777).toString(8);
        const aside = warning.setAside > 0 ? `, and set aside ${warning.setAside} file(s) other users owned` : "";
        findings.push({
          check: "bus",
          status: "fixed",
          text: `${warning.path} was open to other users (mode ${mode}): closed ${warning.folders} folder(s)${aside}, as every session does.`,
        });
      },
    };
    const view = createNodeBusReader(ctx.agentDir, key, host).snapshot();
    findings.push(...folderFindings(folder, fix), ...tmpFindings(folder, ctx.term.now()));
    if (view.isErr()) continue;
    const gone = view.value.sessions.filter((s) => s.state === "gone");
    const live = view.value.sessions.length - gone.length;
    if (gone.length === 0) {
      findings.push({ check: "bus", status: "ok", text: `${folder}: ${live} live member(s).` });
      continue;
    }
    if (!fix) {
      const labels = gone.map((s) => s.label).join(", ");
      findings.push({
        check: "bus",
        status: "warn",
        text: `${folder}: ${gone.length} member record(s) of sessions that are gone (${labels}); their labels stay taken until their heartbeat ages out.`,
        fix: "switchboard doctor --fix removes them",
      });
      continue;
    }
    const store = createNodeBusStore(ctx.agentDir, key);
    let removed = 0;
    for (const s of gone) {
      const stored = store.readRecord(s.id);
      if (stored.isOk() && stored.value !== undefined && store.removeRecord(s.id, stored.value.record.joinToken).isOk())
        removed++;
    }
    findings.push({
      check: "bus",
      status: "fixed",
      text: `${folder}: removed ${removed} member record(s) of sessions that are gone.`,
    });
  }
  return findings;
}
