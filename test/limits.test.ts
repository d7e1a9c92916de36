// Every bound in a limits file is enforced somewhere (STYLE.md, "Limits that bind" of issue 10): a
// constant of src/domain/<context>/limits.ts that no other file of src reads binds nothing, however
// carefully it is named. The check is pure over { path, text }, so the self-test at the bottom
// proves on fake sources that it fires.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  notPartOfName,
  parseImports,
  readSources,
  repo,
  resolveSource,
  type SourceFile,
  scanSource,
} from "./source-text.js";

const isLimitsFile = (path: string) => /^src\/domain\/[^/]+\/limits\.ts$/.test(path);

/** The names of a limits file's `export const` declarations. */
function limitNames(file: SourceFile): string[] {
  const declared = new RegExp(String.raw`${notPartOfName}export\s+const\s+([\w$]+)`, "g");
  return [...scanSource(file.text).bare.matchAll(declared)].map((match) => match[1]!);
}

const escaped = (name: string) => name.replaceAll("$", "\\$");

/** The limits of `limits` that `reader` reads: imported by name (or through a namespace) and named
 * again in its code. An import alone, a re-export, a comment or a string reads nothing. */
function limitsRead(reader: SourceFile, limits: string, paths: ReadonlySet<string>): Set<string> {
  // Code with its strings and comments blanked, and without `export { … }` lists: passing a
  // limit on is not reading it.
  const code = scanSource(reader.text).bare.replace(/export\s*(?:type\s*)?\{[^{}]*\}/g, "");
  const count = (pattern: string) => [...code.matchAll(new RegExp(pattern, "g"))].length;
  const read = new Set<string>();
  for (const ref of parseImports(scanSource(reader.text))) {
    if (ref.reexport || resolveSource(reader.path, ref.specifier, paths) !== limits) continue;
    // The import clause names each binding once; any further mention is a read.
    for (const { name, as } of ref.names) {
      if (count(String.raw`${notPartOfName}${escaped(as)}(?![\w$])`) > 1) read.add(name);
    }
    if (ref.namespace === undefined) continue;
    const member = new RegExp(String.raw`${notPartOfName}${escaped(ref.namespace)}\s*\.\s*([\w$]+)`, "g");
    for (const match of code.matchAll(member)) read.add(match[1]!);
  }
  return read;
}

/** Every limit that no file of src but its own limits file reads, as `file: name`. */
function unreadLimits(files: readonly SourceFile[]): string[] {
  const inSrc = files.filter((file) => file.path.startsWith("src/"));
  const paths = new Set(inSrc.map((file) => file.path));
  const unread: string[] = [];
  for (const limits of inSrc.filter((file) => isLimitsFile(file.path))) {
    const read = new Set(
      inSrc.filter((file) => file.path !== limits.path).flatMap((file) => [...limitsRead(file, limits.path, paths)]),
    );
    for (const name of limitNames(limits)) if (!read.has(name)) unread.push(`${limits.path}: ${name}`);
  }
  return unread;
}

describe("every limit binds", () => {
  const sources = readSources(join(repo, "src"));

  it("finds the limits file of each context, mail's and bus's included, each declaring limits", () => {
    const found = sources.filter((file) => isLimitsFile(file.path)).map((file) => file.path);
    expect(found).toEqual(expect.arrayContaining(["src/domain/mail/limits.ts", "src/domain/bus/limits.ts"]));
    for (const path of found) expect(limitNames(sources.find((file) => file.path === path)!).length).toBeGreaterThan(0);
  });

  it("has every exported constant of every src/domain/*/limits.ts read by another file of src", () => {
    expect(unreadLimits(sources)).toEqual([]);
  });
});

describe("the limits check itself", () => {
  const fake = (path: string, ...lines: string[]): SourceFile => ({ path, text: lines.join("\n") });
  const fakes = [
    fake(
      "src/domain/mail/limits.ts",
      "export const readMax = 1;",
      "export const unreadMs = 2;",
      "export const onlyInLimits = 3;",
      "export const derived = onlyInLimits * 2;",
      "export const reexportedOnly = 4;",
      "export const viaNamespace = 5;",
      "export const mentionedInComment = 6;",
      "export const importedNotRead = 7;",
      "export const renamedRead = 8;",
      "export const readByTestOnly = 9;",
    ),
    fake(
      "src/domain/mail/user.ts",
      'import { derived, importedNotRead, readMax, renamedRead as r } from "./limits.js";',
      "// mentionedInComment and unreadMs are named here, in a comment",
      'const s = "unreadMs";',
      "export const x = readMax + r + derived;",
    ),
    fake("src/domain/mail/ns.ts", 'import * as limits from "./limits.js";', "export const y = limits.viaNamespace;"),
    fake(
      "src/domain/mail/pass.ts",
      'import { mentionedInComment } from "./limits.js";',
      "export { mentionedInComment };",
    ),
    fake(
      "src/index.ts",
      'export * from "./domain/mail/limits.js";',
      'export { reexportedOnly } from "./domain/mail/limits.js";',
    ),
    fake("src/domain/bus/limits.ts", "export const busReadMs = 1;", "export const busUnreadMs = 2;"),
    fake("src/domain/bus/engine.ts", 'import { busReadMs } from "./limits.js";', "export const z = busReadMs * 2;"),
    fake(
      "test/domain/mail/limits.test.ts",
      'import { readByTestOnly } from "../../../src/domain/mail/limits.js";',
      "expect(readByTestOnly).toBe(9);",
    ),
  ];

  it("names each limit read nowhere else in src, as file: name (only imported, re-exported, passed on, named in a comment or a string, read in its own file or by a test), and none read by name, renamed or through a namespace", () => {
    expect(unreadLimits(fakes)).toEqual([
      "src/domain/mail/limits.ts: unreadMs",
      "src/domain/mail/limits.ts: onlyInLimits",
      "src/domain/mail/limits.ts: reexportedOnly",
      "src/domain/mail/limits.ts: mentionedInComment",
      "src/domain/mail/limits.ts: importedNotRead",
      "src/domain/mail/limits.ts: readByTestOnly",
      "src/domain/bus/limits.ts: busUnreadMs",
    ]);
  });
});
