// The dependency rule of DESIGN.md ("Architecture: ports and adapters") as a checker over the source
// text of .ts files: pure functions over { path, text }, so test/architecture.test.ts can run it on
// src/ and prove on fake sources that each rule fires.

import { builtinModules } from "node:module";
import { posix } from "node:path";
import { importCycles, partCalls } from "./graph-rules.js";
import {
  type ImportRef,
  lineAt,
  notPartOfName,
  parseExports,
  parseImports,
  resolveSource,
  type SourceFile,
  scanSource,
} from "./source-text.js";

export const rules = {
  layout:
    "every file of src sits in a folder of the layout: domain, ports and pi by context (shared, mail, bus, bridge), adapters/fs by context, adapters/{node,memory,pg}, wiring, cli, or src/index.ts",
  domain: "src/domain imports only src/domain, neverthrow and types from src/ports",
  ports: "src/ports imports only with `import type`, from src/domain, src/ports, neverthrow or typebox",
  contexts:
    "in domain, ports, adapters/fs and pi, mail, bus and bridge each import only their own context and shared, never each other; shared imports no context",
  adapters:
    "src/adapters imports src/ports, src/domain, adapters/fs/shared and its own folder, and only its own platform (node:* in node/, memfs in memory/, pg in pg/)",
  platforms: "only src/adapters/memory imports memfs and only src/adapters/pg imports pg",
  wiring: "src/wiring composes: it imports only src/domain, src/ports, src/adapters, src/wiring and neverthrow",
  pi: "only src/pi imports Pi (@earendil-works/*, @mariozechner/*)",
  intoPi: "nothing outside src/pi imports src/pi, src/index.ts included",
  intoCli: "nothing outside src/cli imports src/cli",
  dynamic: "nothing in src uses a dynamic import() or require()",
  ambient: "src/domain code never names Date, Math.random, timers, queueMicrotask, process, globalThis or crypto",
  orphans:
    "every export of a file under src is imported or re-exported by another file under src (the build entries are the roots)",
  cycles: "no import cycle anywhere under src, type imports included",
  parts:
    "in an engine folder, parts reach each other only through their factories' arguments: only the composition root makes parts, and the context names no part",
} as const;
export type RuleId = keyof typeof rules;

interface Violation {
  rule: RuleId;
  file: string;
  /** Absent for a finding about a whole name rather than a line (an orphan export). */
  line?: number;
  detail: string;
}

/** Where a file sits. `layer`: domain, ports, adapters, wiring, pi, cli, entry (src/index.ts), src
 * (any other top file) or outside. `folder`: the finest unit of the layout (`adapters/fs/mail`).
 * `context`: shared, mail, bus… for domain, ports, adapters/fs and pi. */
interface Place {
  layer: string;
  folder: string;
  context?: string;
}

const contextLayers = new Set(["domain", "ports", "pi"]);
const knownContexts = new Set(["shared", "mail", "bus", "bridge"]);
const platforms = new Set(["fs", "node", "memory", "pg"]);

export function placeOf(path: string): Place {
  const parts = path.split("/");
  if (parts[0] !== "src") return { layer: "outside", folder: "outside" };
  if (parts.length === 2) {
    const layer = /^index\.[jt]s$/.test(parts[1]!) ? "entry" : "src";
    return { layer, folder: layer };
  }
  const layer = parts[1]!;
  if (layer === "adapters") {
    if (parts.length === 3) return { layer, folder: layer };
    if (parts[2] === "fs" && parts.length > 4) return { layer, folder: `adapters/fs/${parts[3]}`, context: parts[3]! };
    return { layer, folder: `adapters/${parts[2]}` };
  }
  if (contextLayers.has(layer) && parts.length > 3)
    return { layer, folder: `${layer}/${parts[2]}`, context: parts[2]! };
  return { layer, folder: layer };
}

/** Whether a file sits where the layout of DESIGN.md has a place for it. */
function inLayout(path: string): boolean {
  const place = placeOf(path);
  if (place.layer === "entry" || place.layer === "wiring" || place.layer === "cli") return true;
  if (place.layer === "adapters") {
    const platform = place.folder.split("/")[1];
    if (platform === "fs") return place.context !== undefined && knownContexts.has(place.context);
    return platform !== undefined && platforms.has(platform);
  }
  return contextLayers.has(place.layer) && place.context !== undefined && knownContexts.has(place.context);
}

type Target = { kind: "file"; place: Place } | { kind: "node" } | { kind: "package"; name: string };

function targetOf(file: string, specifier: string): Target {
  if (specifier.startsWith(".")) {
    return { kind: "file", place: placeOf(posix.normalize(posix.join(posix.dirname(file), specifier))) };
  }
  const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!;
  if (specifier.startsWith("node:") || builtinModules.includes(name)) return { kind: "node" };
  return { kind: "package", name };
}

const agnosticPackages = new Set(["neverthrow", "typebox"]);
const isPi = (name: string) => name.startsWith("@earendil-works/") || name.startsWith("@mariozechner/");
const isPackage = (target: Target, name: string) => target.kind === "package" && target.name === name;

/** A context imports only itself and shared; shared imports no context. Files outside a context
 * (wiring, adapters/node, adapters/memory) compose contexts and are not bound by this. */
function crossesContext(from: Place, target: Target): boolean {
  if (from.context === undefined || target.kind !== "file" || target.place.context === undefined) return false;
  const to = target.place.context;
  return to !== "shared" && to !== from.context;
}

function adapterImportAllowed(from: Place, target: Target): boolean {
  if (target.kind === "file") {
    const to = target.place;
    return (
      to.layer === "domain" || to.layer === "ports" || to.folder === "adapters/fs/shared" || to.folder === from.folder
    );
  }
  if (target.kind === "node") return from.folder === "adapters/node";
  if (agnosticPackages.has(target.name)) return true;
  return (
    (target.name === "memfs" && from.folder === "adapters/memory") ||
    (target.name === "pg" && from.folder === "adapters/pg")
  );
}

/** Which import rules `ref` of a file at `from` breaks. */
function importRulesBroken(from: Place, file: string, ref: ImportRef): RuleId[] {
  const target = targetOf(file, ref.specifier);
  const to = target.kind === "file" ? target.place : undefined;
  const broken: RuleId[] = [];
  if (target.kind === "package" && isPi(target.name) && from.layer !== "pi") broken.push("pi");
  if (to?.layer === "pi" && from.layer !== "pi") broken.push("intoPi");
  if (to?.layer === "cli" && from.layer !== "cli") broken.push("intoCli");
  if (
    (isPackage(target, "memfs") && from.folder !== "adapters/memory") ||
    (isPackage(target, "pg") && from.folder !== "adapters/pg")
  ) {
    broken.push("platforms");
  }
  if (crossesContext(from, target)) broken.push("contexts");
  if (from.layer === "domain") {
    const allowed = to?.layer === "domain" || (to?.layer === "ports" && ref.typeOnly) || ref.specifier === "neverthrow";
    if (!allowed) broken.push("domain");
  }
  if (from.layer === "ports") {
    const source =
      to?.layer === "domain" ||
      to?.layer === "ports" ||
      (target.kind === "package" && agnosticPackages.has(target.name));
    if (!ref.typeOnly || !source) broken.push("ports");
  }
  if (from.layer === "adapters" && !adapterImportAllowed(from, target)) broken.push("adapters");
  if (from.layer === "wiring") {
    const allowed =
      ["domain", "ports", "adapters", "wiring"].includes(to?.layer ?? "") || ref.specifier === "neverthrow";
    if (!allowed) broken.push("wiring");
  }
  return broken;
}

/** Every name each file exports, its own and those it re-exports, with the line that exports it. */
function exportsOf(file: SourceFile): Array<{ name: string; line: number }> {
  const scanned = scanSource(file.text);
  const reexported = parseImports(scanned)
    .filter((ref) => ref.reexport)
    .flatMap((ref) => ref.names.map((name) => ({ name: name.as, line: ref.line })));
  return [...parseExports(scanned), ...reexported].sort((a, b) => a.line - b.line);
}

/** What the orphan check needs besides the sources of src: the roots, used from outside (the
 * library API, the extension entries), and the tests, which use some exports of src legitimately. */
export interface Users {
  roots: ReadonlySet<string>;
  tests: readonly SourceFile[];
}

/** Per file: the names others take from it, or "all" once one takes its every export (a star). */
function usesByFile(importers: readonly SourceFile[], paths: ReadonlySet<string>): Map<string, Set<string> | "all"> {
  const used = new Map<string, Set<string> | "all">();
  for (const file of importers) {
    for (const ref of parseImports(scanSource(file.text))) {
      const target = resolveSource(file.path, ref.specifier, paths);
      if (target === undefined || target === file.path) continue;
      const names = used.get(target) ?? new Set<string>();
      if (names === "all" || ref.star) used.set(target, "all");
      else used.set(target, new Set([...names, ...ref.names.map((name) => name.name)]));
    }
  }
  return used;
}

const takes = (uses: Set<string> | "all" | undefined, name: string) => uses === "all" || (uses?.has(name) ?? false);

/** Whether `name` is read in its own file beyond the line that exports it: live code of that file. */
function readInOwnFile(file: SourceFile, name: string): boolean {
  const word = new RegExp(String.raw`${notPartOfName}${name.replaceAll("$", "\\$")}(?![\w$])`, "g");
  return [...scanSource(file.text).bare.matchAll(word)].length > 1;
}

/** Every export that no other file of src imports or re-exports. Two uses from tests count as well:
 * adapters/memory is the tests' world (the simulator and the harnesses run on it, nothing in src
 * does), and an export read in its own file is live code that a test imports to pin. An export
 * that only tests read is dead code kept alive by its tests, and is reported. */
function orphanExports(files: readonly SourceFile[], users: Users): Violation[] {
  const paths = new Set(files.map((file) => file.path));
  const bySrc = usesByFile(
    files.filter((file) => placeOf(file.path).layer !== "outside"),
    paths,
  );
  const byTests = usesByFile(users.tests, paths);
  const violations: Violation[] = [];
  for (const file of files) {
    if (users.roots.has(file.path) || placeOf(file.path).layer === "outside") continue;
    const testWorld = placeOf(file.path).folder === "adapters/memory";
    for (const { name } of exportsOf(file)) {
      if (takes(bySrc.get(file.path), name)) continue;
      const pinned = takes(byTests.get(file.path), name) && (testWorld || readInOwnFile(file, name));
      if (!pinned) violations.push({ rule: "orphans", file: file.path, detail: name });
    }
  }
  return violations;
}

const ambientNames = new RegExp(
  String.raw`${notPartOfName}(?:Date|setTimeout|setInterval|setImmediate|queueMicrotask|process|globalThis|crypto)(?![\w$])|${notPartOfName}Math\s*\.\s*random(?![\w$])`,
  "g",
);
const dynamicLoad = new RegExp(String.raw`${notPartOfName}(import|require)\s*\(`, "g");

/** The violations of one file that its own text shows: its imports, dynamic loads, ambient names. */
function fileViolations(file: SourceFile): Violation[] {
  const place = placeOf(file.path);
  const scanned = scanSource(file.text);
  const violations: Violation[] = [];
  const at = (rule: RuleId, index: number, text: string, detail: string) =>
    violations.push({ rule, file: file.path, line: lineAt(text, index), detail });
  if (!inLayout(file.path)) violations.push({ rule: "layout", file: file.path, line: 1, detail: "has no place" });
  for (const ref of parseImports(scanned)) {
    for (const rule of importRulesBroken(place, file.path, ref)) {
      violations.push({ rule, file: file.path, line: ref.line, detail: `imports ${JSON.stringify(ref.specifier)}` });
    }
  }
  for (const match of scanned.code.matchAll(dynamicLoad))
    at("dynamic", match.index, scanned.code, `calls ${match[1]}()`);
  if (place.layer !== "domain") return violations;
  for (const match of scanned.bare.matchAll(ambientNames)) {
    at("ambient", match.index, scanned.bare, `names ${match[0].replace(/\s+/g, "")}`);
  }
  return violations;
}

export function checkSources(files: readonly SourceFile[], users: Users): Violation[] {
  return [
    ...files.flatMap(fileViolations),
    ...orphanExports(files, users),
    ...importCycles(files),
    ...partCalls(files),
  ];
}

/** `file:line detail`, or `file: name` for a finding about a name (an orphan export). */
export const formatted = (violations: readonly Violation[], rule: RuleId) =>
  violations
    .filter((v) => v.rule === rule)
    .map((v) => (v.line === undefined ? `${v.file}: ${v.detail}` : `${v.file}:${v.line} ${v.detail}`));
