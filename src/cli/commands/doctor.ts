// `switchboard doctor`: checks the mail root and the bus folders and explains what it finds, each with
// its fix; --fix does what is safe (folder modes, stale running records) and says what it did.
import type { Command } from "../command.js";
import { checkBus } from "../doctor-bus.js";
import { checkFolders, checkPrune, checkRecords, checkSettings, checkTmp, type Finding } from "../doctor-checks.js";
import { checkRoot } from "../doctor-root.js";
import { checkFilesystem, checkWatch } from "../doctor-system.js";
import { exitCodes } from "../exit-codes.js";
import { json } from "../format.js";

const marks: Record<Finding["status"], string> = {
  ok: "ok     ",
  warn: "note   ",
  problem: "PROBLEM",
  fixed: "fixed  ",
};

export const doctor: Command = {
  words: ["doctor"],
  summary: "check the mail root and the bus, and explain each problem's fix",
  args: "",
  description: [
    "Checks where the folders are (XDG_STATE_HOME, the agent dir, session-mail.json), the mail root and",
    "the path up to it, each mailbox folder's owner and mode, running records of sessions that are gone,",
    "files left in tmp/, folders a prune would remove, the file system (a network one breaks the",
    "guarantees), whether watching works there, and the same for each bus. Exits 1 when a problem",
    "remains. --fix closes open folders to other users and removes stale records, saying what it did.",
  ].join("\n"),
  examples: ["switchboard doctor", "switchboard doctor --fix"],
  options: { fix: { type: "boolean", help: "fix what is safe: folder modes and stale records" } },
  positionals: { min: 0, max: 0 },
  async run({ values }, ctx) {
    const fix = values.fix === true;
    const findings = [
      ...checkSettings(ctx),
      ...checkRoot(ctx, fix),
      ...checkFolders(ctx, fix),
      ...checkRecords(ctx, fix),
      ...checkTmp(ctx),
      ...checkPrune(ctx),
      ...checkFilesystem(ctx),
      ...(await checkWatch(ctx)),
      ...checkBus(ctx, fix),
    ];
    const problems = findings.filter((f) => f.status === "problem").length;
    if (ctx.json) ctx.term.out(json({ problems, findings }));
    else {
      for (const f of findings)
        ctx.term.out(`${marks[f.status]}  ${f.text}${f.fix === undefined ? "" : `\n         fix: ${f.fix}`}\n`);
      ctx.term.out(problems === 0 ? "No problems.\n" : `${problems} problem(s).\n`);
    }
    return problems === 0 ? exitCodes.ok : exitCodes.error;
  },
};
