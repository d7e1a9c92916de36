// The dependency rule of DESIGN.md ("Architecture: ports and adapters"), checked on the source text
// of every .ts file under src/. The checker is pure functions over { path, text }, so the self-test
// at the bottom can prove on fake sources that each rule fails when it should.
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, posix, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

interface SourceFile {
  /** Repository-relative, with forward slashes: `src/domain/mail/address.ts`. */
  path: string;
  text: string;
}

interface ImportRef {
  line: number;
  specifier: string;
  /** `import type …` or `export type …`: erased at build time. */
  typeOnly: boolean;
}

const rules = {
  domain: "src/domain imports only src/domain, neverthrow and types from src/ports",
  ports: "src/ports imports only with `import type`, from src/domain, src/ports, neverthrow or typebox",
  adapters:
    "src/adapters imports src/ports, src/domain, adapters/fs and its own folder, and only its own platform (node:* in node/, memfs in memory/)",
  pi: "only src/pi imports Pi (@earendil-works/*, @mariozechner/*)",
  intoPi: "nothing outside src/pi imports src/pi, src/index.ts included",
  dynamic: "nothing in src uses a dynamic import() or require()",
  ambient: "src/domain code never names Date, Math.random, timers, queueMicrotask, process, globalThis or crypto",
} as const;
type RuleId = keyof typeof rules;

interface Violation {
  rule: RuleId;
  file: string;
  line: number;
  detail: string;
}

/** Same length and line breaks as the source. `code`: comments, template text and regex bodies
 * blanked, quoted strings kept (import specifiers live there). `bare`: quoted strings blanked too. */
interface Scanned {
  code: string;
  bare: string;
}

const regexFollows = new Set([..."(,=:[!&|?{};+-*%<>~^"]);
const regexKeywords = new Set([
  "return",
  "typeof",
  "case",
  "do",
  "else",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "yield",
  "await",
  "instanceof",
]);

/** Whether a `/` here starts a regex literal rather than a division, from the code before it. */
function regexMayStart(code: readonly string[]): boolean {
  let end = code.length - 1;
  while (end >= 0 && /\s/.test(code[end]!)) end--;
  if (end < 0) return true;
  if (regexFollows.has(code[end]!)) return true;
  let start = end;
  while (start > 0 && /[\w$]/.test(code[start - 1]!)) start--;
  return regexKeywords.has(code.slice(start, end + 1).join(""));
}

function scanSource(text: string): Scanned {
  const code: string[] = [];
  const bare: string[] = [];
  const keep = (c: string) => {
    code.push(c);
    bare.push(c);
  };
  const blank = (c: string) => keep(c === "\n" ? "\n" : " ");
  const keepInCode = (c: string) => {
    code.push(c);
    bare.push(c === "\n" ? "\n" : " ");
  };
  // A template's `${` opens code that a matching `}` closes; `depth` counts the braces in between.
  const stack: Array<{ kind: "code"; depth: number } | { kind: "template" }> = [{ kind: "code", depth: 0 }];
  let i = 0;
  while (i < text.length) {
    const top = stack[stack.length - 1]!;
    const c = text[i]!;
    const next = text[i + 1];
    if (top.kind === "template") {
      if (c === "`") stack.pop();
      if (c === "$" && next === "{") {
        keep(c);
        keep(next);
        stack.push({ kind: "code", depth: 0 });
        i += 2;
      } else if (c === "\\") {
        blank(c);
        if (next !== undefined) blank(next);
        i += 2;
      } else {
        (c === "`" ? keep : blank)(c);
        i++;
      }
      continue;
    }
    if (c === "/" && (next === "/" || next === "*")) {
      const end = next === "/" ? text.indexOf("\n", i) : text.indexOf("*/", i + 2) + 2;
      const stop = end <= 1 ? text.length : end;
      while (i < stop) blank(text[i++]!);
    } else if (c === '"' || c === "'") {
      keep(c);
      i++;
      while (i < text.length && text[i] !== c && text[i] !== "\n") {
        if (text[i] === "\\" && i + 1 < text.length) keepInCode(text[i++]!);
        keepInCode(text[i++]!);
      }
      if (text[i] === c) keep(text[i++]!);
    } else if (c === "`") {
      keep(c);
      stack.push({ kind: "template" });
      i++;
    } else if (c === "/" && regexMayStart(code)) {
      keep(c);
      i++;
      let inClass = false;
      while (i < text.length && text[i] !== "\n" && (inClass || text[i] !== "/")) {
        if (text[i] === "[") inClass = true;
        if (text[i] === "]") inClass = false;
        if (text[i] === "\\" && i + 1 < text.length) blank(text[i++]!);
        blank(text[i++]!);
      }
      if (text[i] === "/") keep(text[i++]!);
    } else {
      if (c === "{") top.depth++;
      if (c === "}" && top.depth === 0 && stack.length > 1) stack.pop();
      else if (c === "}") top.depth--;
      keep(c);
      i++;
    }
  }
  return { code: code.join(""), bare: bare.join("") };
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

const notPartOfName = String.raw`(?<![\w$.])`;
const clause = String.raw`(?:[\w$]+\s*,?\s*)?(?:\*(?:\s+as\s+[\w$]+)?|\{[^{}]*\})?`;
const staticImport = new RegExp(
  String.raw`${notPartOfName}(import|export)(\s+type)?\s+(?:${clause}\s*from\s*)?(["'])([^"'\n]*)\3`,
  "g",
);
const dynamicLoad = new RegExp(String.raw`${notPartOfName}(import|require)\s*\(`, "g");

/** Every `import … from "x"`, `import type …`, `export … from "x"` and `import "x"` of a file. */
function parseImports(scanned: Scanned): ImportRef[] {
  const refs: ImportRef[] = [];
  for (const match of scanned.code.matchAll(staticImport)) {
    const [, , typeWord, , specifier] = match;
    refs.push({ line: lineAt(scanned.code, match.index), specifier: specifier!, typeOnly: typeWord !== undefined });
  }
  return refs;
}

type Target = { kind: "file"; path: string } | { kind: "node" } | { kind: "package"; name: string };

function targetOf(file: string, specifier: string): Target {
  if (specifier.startsWith("."))
    return { kind: "file", path: posix.normalize(posix.join(posix.dirname(file), specifier)) };
  const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!;
  if (specifier.startsWith("node:") || builtinModules.includes(name)) return { kind: "node" };
  return { kind: "package", name };
}

/** `domain`, `ports`, `pi`, `adapters/<folder>`, `entry` (src/index.ts), `src` (other top files) or `outside`. */
function layerOf(path: string): string {
  const parts = path.split("/");
  if (parts[0] !== "src") return "outside";
  if (parts.length === 2) return /^index\.[jt]s$/.test(parts[1]!) ? "entry" : "src";
  if (parts[1] === "adapters") return parts.length > 3 ? `adapters/${parts[2]}` : "adapters";
  return parts[1]!;
}

const agnosticPackages = new Set(["neverthrow", "typebox"]);
const isPi = (name: string) => name.startsWith("@earendil-works/") || name.startsWith("@mariozechner/");

/** Which import rules `ref` of a file in `layer` breaks. */
function importRulesBroken(layer: string, file: string, ref: ImportRef): RuleId[] {
  const target = targetOf(file, ref.specifier);
  const to = target.kind === "file" ? layerOf(target.path) : undefined;
  const broken: RuleId[] = [];
  if (target.kind === "package" && isPi(target.name) && layer !== "pi") broken.push("pi");
  if (to === "pi" && layer !== "pi") broken.push("intoPi");
  if (layer === "domain") {
    const allowed = to === "domain" || (to === "ports" && ref.typeOnly) || ref.specifier === "neverthrow";
    if (!allowed) broken.push("domain");
  }
  if (layer === "ports") {
    const from = to === "domain" || to === "ports" || (target.kind === "package" && agnosticPackages.has(target.name));
    if (!ref.typeOnly || !from) broken.push("ports");
  }
  if (layer.startsWith("adapters")) {
    const allowed =
      to === "domain" ||
      to === "ports" ||
      to === "adapters/fs" ||
      to === layer ||
      (target.kind === "package" && agnosticPackages.has(target.name)) ||
      (target.kind === "node" && layer === "adapters/node") ||
      (target.kind === "package" && target.name === "memfs" && layer === "adapters/memory");
    if (!allowed) broken.push("adapters");
  }
  return broken;
}

const ambientNames = new RegExp(
  String.raw`${notPartOfName}(?:Date|setTimeout|setInterval|setImmediate|queueMicrotask|process|globalThis|crypto)(?![\w$])|${notPartOfName}Math\s*\.\s*random(?![\w$])`,
  "g",
);

function checkSources(files: readonly SourceFile[]): Violation[] {
  const violations: Violation[] = [];
  for (const file of files) {
    const layer = layerOf(file.path);
    const scanned = scanSource(file.text);
    for (const ref of parseImports(scanned)) {
      for (const rule of importRulesBroken(layer, file.path, ref)) {
        violations.push({ rule, file: file.path, line: ref.line, detail: `imports ${JSON.stringify(ref.specifier)}` });
      }
    }
    for (const match of scanned.code.matchAll(dynamicLoad)) {
      violations.push({
        rule: "dynamic",
        file: file.path,
        line: lineAt(scanned.code, match.index),
        detail: `calls ${match[1]}()`,
      });
    }
    if (layer !== "domain") continue;
    for (const match of scanned.bare.matchAll(ambientNames)) {
      const name = match[0].replace(/\s+/g, "");
      violations.push({
        rule: "ambient",
        file: file.path,
        line: lineAt(scanned.bare, match.index),
        detail: `names ${name}`,
      });
    }
  }
  return violations;
}

const formatted = (violations: readonly Violation[], rule: RuleId) =>
  violations.filter((v) => v.rule === rule).map((v) => `${v.file}:${v.line} ${v.detail}`);

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");

function readSources(folder: string): SourceFile[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts|cts|tsx)$/.test(entry.name))
    .map((entry) => {
      const full = join(entry.parentPath, entry.name);
      return { path: relative(repo, full).split(sep).join("/"), text: readFileSync(full, "utf8") };
    })
    .sort((a, b) => (a.path < b.path ? -1 : 1));
}

describe("dependency rule over src/", () => {
  const sources = readSources(join(repo, "src"));
  const violations = checkSources(sources);

  it("reads the .ts files of every layer and parses every relative import each one names", () => {
    for (const layer of ["domain", "ports", "adapters/fs", "adapters/node", "adapters/memory"]) {
      expect(
        sources.some((f) => layerOf(f.path) === layer),
        `files in ${layer}`,
      ).toBe(true);
    }
    // Independent of the import pattern: every quoted "./x.js" or "../x.js" must be a parsed specifier.
    const missed = sources.flatMap((f) => {
      const scanned = scanSource(f.text);
      const parsed = new Set(parseImports(scanned).map((ref) => ref.specifier));
      return [...scanned.code.matchAll(/["'](\.\.?\/[^"'\n]*\.js)["']/g)]
        .filter((m) => !parsed.has(m[1]!))
        .map((m) => `${f.path}:${lineAt(scanned.code, m.index)} ${m[1]}`);
    });
    expect(missed).toEqual([]);
    expect(sources.reduce((count, f) => count + parseImports(scanSource(f.text)).length, 0)).toBeGreaterThan(
      sources.length,
    );
  });

  for (const [rule, name] of Object.entries(rules) as [RuleId, string][]) {
    it(name, () => {
      expect(formatted(violations, rule)).toEqual([]);
    });
  }
});

describe("the dependency checker itself", () => {
  const fake = (path: string, ...lines: string[]): SourceFile => ({ path, text: lines.join("\n") });
  const fakes = [
    fake(
      "src/domain/bad.ts",
      'import { readFileSync } from "node:fs";',
      'import { systemClock } from "../ports/clock.js";',
      "export const t = Date.now();",
      "const later = setTimeout;",
      "// Date, process and import('x') in a comment are fine",
      'const s = "process, Date.now()";',
      "const r = Math.random();",
      'import type { Clock } from "../ports/clock.js";',
      // A template with code inside (@ stands for $, so this file holds no template syntax in a string).
      'export const tpl = `import x from "node:fs" @{Date.now()} @{`@{process.pid}`}`;'.replaceAll("@{", "$" + "{"),
      "const quote = /[\"'`]/.test(s) ? 2 : t / 2;",
      'const mod = await import("typebox");',
      'import { Type } from "typebox";',
    ),
    fake(
      "src/ports/bad.ts",
      'import { ok } from "neverthrow";',
      "export type {",
      "  FsLike,",
      '} from "../adapters/fs/fs-like.js";',
      'import type { Result } from "neverthrow";',
      'export type * from "./mail-store.js";',
    ),
    fake(
      "src/adapters/fs/bad.ts",
      'import * as fs from "node:fs";',
      'import { createMemoryFs } from "../memory/memory-fs.js";',
      'import "memfs";',
      'import { ok } from "neverthrow";',
      'import type { FsLike } from "./fs-like.js";',
    ),
    fake(
      "src/adapters/node/host.ts",
      'import { readFileSync } from "fs";',
      'import type { FsLike } from "../fs/fs-like.js";',
      'import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";',
      'const pkg = require("memfs");',
    ),
    fake("src/adapters/memory/vol.ts", 'import { Volume } from "memfs";', 'import { tmpdir } from "node:os";'),
    fake("src/index.ts", 'export { default } from "./pi/extension.js";', 'export * from "./domain/limits.js";'),
    fake(
      "src/pi/extension.ts",
      'import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";',
      'import "./tools.js";',
    ),
  ];
  const found = checkSources(fakes);

  it("flags a domain file importing node:fs, typebox or a value from ports, and nothing type-only or in domain", () => {
    expect(formatted(found, "domain")).toEqual([
      'src/domain/bad.ts:1 imports "node:fs"',
      'src/domain/bad.ts:2 imports "../ports/clock.js"',
      'src/domain/bad.ts:12 imports "typebox"',
    ]);
  });

  it("flags Date, timers, Math.random and process in domain code, template expressions included, but not in comments or strings", () => {
    expect(formatted(found, "ambient")).toEqual([
      "src/domain/bad.ts:3 names Date",
      "src/domain/bad.ts:4 names setTimeout",
      "src/domain/bad.ts:7 names Math.random",
      "src/domain/bad.ts:9 names Date",
      "src/domain/bad.ts:9 names process",
    ]);
  });

  it("flags a value import in ports and a type import from adapters, reporting a multi-line statement at its first line", () => {
    expect(formatted(found, "ports")).toEqual([
      'src/ports/bad.ts:1 imports "neverthrow"',
      'src/ports/bad.ts:2 imports "../adapters/fs/fs-like.js"',
    ]);
  });

  it("flags node:* outside adapters/node, memfs outside adapters/memory and one adapter importing another's folder", () => {
    expect(formatted(found, "adapters")).toEqual([
      'src/adapters/fs/bad.ts:1 imports "node:fs"',
      'src/adapters/fs/bad.ts:2 imports "../memory/memory-fs.js"',
      'src/adapters/fs/bad.ts:3 imports "memfs"',
      'src/adapters/node/host.ts:3 imports "@earendil-works/pi-coding-agent"',
      'src/adapters/memory/vol.ts:2 imports "node:os"',
    ]);
  });

  it("flags Pi packages outside src/pi and src/pi imported from src/index.ts", () => {
    expect(formatted(found, "pi")).toEqual(['src/adapters/node/host.ts:3 imports "@earendil-works/pi-coding-agent"']);
    expect(formatted(found, "intoPi")).toEqual(['src/index.ts:1 imports "./pi/extension.js"']);
  });

  it("flags import() and require() calls but not the words in comments or template text", () => {
    expect(formatted(found, "dynamic")).toEqual([
      "src/domain/bad.ts:11 calls import()",
      "src/adapters/node/host.ts:4 calls require()",
    ]);
  });
});
