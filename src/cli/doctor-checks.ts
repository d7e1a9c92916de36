// What `switchboard doctor` looks at, each check a function of the places it reads: the settings that
// place the folders, each address folder's mode and owner, stale running records, tmp/ leftovers and
// what a prune would remove (the mail root itself: doctor-root.ts; the file system: doctor-system.ts).
import { chmodSync, lstatSync, readdirSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { createConfigFile } from "../adapters/node/config-file.js";
import { currentUid } from "../adapters/node/process-user.js";
import { isAddress } from "../domain/mail/address.js";
import { readConfig } from "../domain/mail/config.js";
import { createNodeMailStore } from "../wiring/node-mailbox.js";
import type { CliContext } from "./command.js";
import { openMailReader } from "./mail-side.js";

export interface Finding {
  /** Which check: root, path, folders, records, tmp, prune, filesystem, watch, settings. */
  check: string;
  status: "ok" | "warn" | "problem" | "fixed";
  text: string;
  /** What fixes it, when something does. */
  fix?: string;
}

export const ok = (check: string, text: string): Finding => ({ check, status: "ok", text });
export const warn = (check: string, text: string, fix?: string): Finding => ({
  check,
  status: "warn",
  text,
  ...(fix ? { fix } : {}),
});
export const problem = (check: string, text: string, fix?: string): Finding => ({
  check,
  status: "problem",
  text,
  ...(fix ? { fix } : {}),
});

/** How old a tmp/ file must be to count as left behind (a write takes milliseconds). */
const tmpLeftoverMs = 60 * 60 * 1000;

export function checkSettings(ctx: CliContext): Finding[] {
  const state = ctx.term.env.XDG_STATE_HOME;
  const findings: Finding[] = [];
  if (state !== undefined && state !== "" && !isAbsolute(state))
    findings.push(
      warn(
        "settings",
        `XDG_STATE_HOME="${state}" is not absolute, so it is ignored (as the specification asks).`,
        "set it to an absolute path, or unset it",
      ),
    );
  findings.push(
    ok("settings", `mail root: ${ctx.mailRoot}`),
    ok("settings", `agent dir: ${ctx.agentDir}${ctx.term.env.PI_CODING_AGENT_DIR ? " (PI_CODING_AGENT_DIR)" : ""}`),
  );
  const config = createConfigFile(ctx.agentDir);
  const reading = readConfig(config.read(), config.path);
  findings.push(
    reading.problem === undefined
      ? ok(
          "settings",
          `${config.path}: hopLimit ${reading.config.hopLimit}, pruneAfterDays ${reading.config.pruneAfterDays}`,
        )
      : problem(
          "settings",
          reading.problem,
          `edit ${config.path}: it holds { "hopLimit": 5, "pruneAfterDays": 30 } at most`,
        ),
  );
  return findings;
}

export const exists = (path: string) => {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
};

/** A folder that must be this user's and closed to others: undefined when it is, else what is wrong,
 * and with `fix` an open one closed (its group and other bits cleared, the rest of its mode kept). */
export function folderFinding(check: string, path: string, fix: boolean): Finding | undefined {
  const stats = exists(path);
  if (stats === undefined) return undefined;
  if (stats.uid !== currentUid())
    return problem(
      check,
      `${path} belongs to another user (uid ${stats.uid}): sessions refuse it.`,
      "remove it, or chown it to yourself",
    );
  if ((stats.mode & 0o077) === 0) return undefined;
  const mode = (stats.mode & 0o7777).toString(8);
  if (!fix)
    return problem(
      check,
      `${path} is open to other users (mode ${mode}).`,
      `chmod go-rwx ${path} (or switchboard doctor --fix)`,
    );
  chmodSync(path, stats.mode & 0o7700);
  return { check, status: "fixed", text: `${path} was open to other users (mode ${mode}); closed.` };
}

/** How many files in `folder` are older than an hour (among the first 1,000 listed): writes a crash
 * cut short, never read as mail, claims or messages. */
export function leftoverCount(folder: string, nowMs: number): number {
  let names: string[];
  try {
    names = readdirSync(folder).slice(0, 1000);
  } catch {
    return 0;
  }
  return names.filter((name) => nowMs - (exists(join(folder, name))?.mtimeMs ?? nowMs) > tmpLeftoverMs).length;
}

/** The address folders of the mail root (at most 5,000), none when it cannot be read. */
function addressFolders(root: string): string[] {
  try {
    return readdirSync(root).filter(isAddress).slice(0, 5000);
  } catch {
    return [];
  }
}

/** Each address folder and its four boxes: this user's and closed to others. */
export function checkFolders(ctx: CliContext, fix: boolean): Finding[] {
  const root = ctx.mailRoot;
  if (exists(root) === undefined) return [];
  const findings: Finding[] = [];
  let checked = 0;
  for (const name of addressFolders(root)) {
    for (const path of [join(root, name), ...["tmp", "new", "cur", "sent"].map((box) => join(root, name, box))]) {
      if (exists(path)?.isDirectory() !== true) continue;
      checked++;
      const finding = folderFinding("folders", path, fix);
      if (finding !== undefined) findings.push(finding);
    }
  }
  if (findings.length === 0 && checked > 0)
    findings.push(ok("folders", `${checked} mailbox folders are yours and closed to other users.`));
  return findings;
}

/** Running records no live session stands behind. Reading them removes those of processes that are
 * gone, as every session's listing does; what stays (a record from another pid namespace gone stale,
 * one that does not parse) is removed by --fix. */
export function checkRecords(ctx: CliContext, fix: boolean): Finding[] {
  const store = createNodeMailStore(ctx.mailRoot);
  const before = store.listRunning();
  if (before.isErr()) return [];
  const live = new Set(
    openMailReader(ctx)
      .list()
      .map((s) => s.address as string),
  );
  const stale = before.value.filter((e) => !live.has(e.address));
  const left = stale.filter((e) => store.readRunning(e.address).unwrapOr(undefined) === e.text);
  const findings: Finding[] = [];
  const cleared = stale.length - left.length;
  if (cleared > 0)
    findings.push({
      check: "records",
      status: "fixed",
      text: `Removed ${cleared} running record(s) of processes that are gone (as every session's listing does).`,
    });
  if (left.length > 0 && fix) {
    let removed = 0;
    for (const entry of left) if (store.removeRunning(entry.address, entry.text).isOk()) removed++;
    findings.push({
      check: "records",
      status: "fixed",
      text: `Removed ${removed} running record(s) nothing here can judge live (another pid namespace, gone stale, or unreadable).`,
    });
  } else if (left.length > 0) {
    const names = left
      .slice(0, 5)
      .map((e) => e.address)
      .join(", ");
    findings.push({
      check: "records",
      status: "warn",
      text: `${left.length} running record(s) nothing here can judge live (another pid namespace, gone stale, or unreadable): ${names}.`,
      fix: "switchboard doctor --fix removes them",
    });
  }
  if (findings.length === 0)
    findings.push(
      ok(
        "records",
        live.size === 0 ? "No running records." : `${live.size} running record(s), each of a live session.`,
      ),
    );
  return findings;
}

/** Files left in tmp/ folders by writers that crashed: harmless, swept by their session at start. */
export function checkTmp(ctx: CliContext): Finding[] {
  const root = ctx.mailRoot;
  if (exists(root) === undefined) return [];
  const now = ctx.term.now();
  let left = 0;
  for (const name of addressFolders(root)) left += leftoverCount(join(root, name, "tmp"), now);
  if (left === 0) return [ok("tmp", "No files left in tmp/ folders.")];
  return [
    warn(
      "tmp",
      `${left} file(s) older than an hour in tmp/ folders: writes a crash cut short. Never read as mail.`,
      "each session sweeps its own at start; switchboard prune removes closed sessions' folders",
    ),
  ];
}

export function checkPrune(ctx: CliContext): Finding[] {
  const judged = openMailReader(ctx).pruneVerdicts(true);
  if (judged.isErr()) return [];
  const going = judged.value.filter((v) => v.reason === "removed").length;
  if (going === 0) return [ok("prune", "No mailbox folder of a closed session waits to be pruned.")];
  return [
    warn(
      "prune",
      `${going} mailbox folder(s) of closed sessions with no unread mail could go.`,
      "switchboard prune (or wait: sessions prune them after pruneAfterDays)",
    ),
  ];
}
