// Reading TypeScript source as text, for the checks over src/ (test/architecture.test.ts,
// test/limits.test.ts): comments and string bodies blanked so a word in them is never taken for
// code, and every import, re-export and export declaration parsed with the names it carries. Pure
// functions over { path, text }, so each check can prove on fake sources that it fires.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

export interface SourceFile {
  /** Repository-relative, with forward slashes: `src/domain/mail/address.ts`. */
  path: string;
  text: string;
}

/** Same length and line breaks as the source. `code`: comments, template text and regex bodies
 * blanked, quoted strings kept (import specifiers live there). `bare`: quoted strings blanked too. */
export interface Scanned {
  code: string;
  bare: string;
}

/** One name a statement takes from the module it names: `name` there, `as` here. */
export interface NameRef {
  name: string;
  as: string;
}

export interface ImportRef {
  line: number;
  specifier: string;
  /** `import type …` or `export type …`: erased at build time. */
  typeOnly: boolean;
  /** `export … from`: a re-export, whose names become this file's exports. */
  reexport: boolean;
  /** `import * as ns` or `export *`: every export of the target, whichever are read. */
  star: boolean;
  /** `ns` of `import * as ns` or `export * as ns`. */
  namespace?: string;
  /** The names taken (`default` for a default import); empty for a star or a bare `import "x"`. */
  names: NameRef[];
}

export interface ExportDecl {
  name: string;
  line: number;
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

type Frame = { kind: "code"; depth: number } | { kind: "template" };

/** Writes both outputs of scanSource: `keep` to both, `blank` to neither, `keepInCode` to code only. */
class ScanOutput {
  readonly code: string[] = [];
  readonly bare: string[] = [];
  keep(c: string): void {
    this.code.push(c);
    this.bare.push(c);
  }
  blank(c: string): void {
    this.keep(c === "\n" ? "\n" : " ");
  }
  keepInCode(c: string): void {
    this.code.push(c);
    this.bare.push(c === "\n" ? "\n" : " ");
  }
}

/** One step inside a template's text; returns the next index. */
function scanTemplateText(text: string, i: number, out: ScanOutput, stack: Frame[]): number {
  const c = text[i]!;
  const next = text[i + 1];
  if (c === "`") stack.pop();
  if (c === "$" && next === "{") {
    out.keep(c);
    out.keep(next);
    // A template's `${` opens code that a matching `}` closes; `depth` counts the braces in between.
    stack.push({ kind: "code", depth: 0 });
    return i + 2;
  }
  if (c === "\\") {
    out.blank(c);
    if (next !== undefined) out.blank(next);
    return i + 2;
  }
  if (c === "`") out.keep(c);
  else out.blank(c);
  return i + 1;
}

/** One step in code (a comment, a string, a regex literal or one character); returns the next index. */
function scanCode(text: string, i: number, out: ScanOutput, stack: Frame[]): number {
  const top = stack[stack.length - 1] as { kind: "code"; depth: number };
  const c = text[i]!;
  const next = text[i + 1];
  if (c === "/" && (next === "/" || next === "*")) {
    const end = next === "/" ? text.indexOf("\n", i) : text.indexOf("*/", i + 2) + 2;
    const stop = end <= 1 ? text.length : end;
    while (i < stop) out.blank(text[i++]!);
  } else if (c === '"' || c === "'") {
    out.keep(c);
    i++;
    while (i < text.length && text[i] !== c && text[i] !== "\n") {
      if (text[i] === "\\" && i + 1 < text.length) out.keepInCode(text[i++]!);
      out.keepInCode(text[i++]!);
    }
    if (text[i] === c) out.keep(text[i++]!);
  } else if (c === "`") {
    out.keep(c);
    stack.push({ kind: "template" });
    i++;
  } else if (c === "/" && regexMayStart(out.code)) {
    out.keep(c);
    i++;
    let inClass = false;
    while (i < text.length && text[i] !== "\n" && (inClass || text[i] !== "/")) {
      if (text[i] === "[") inClass = true;
      if (text[i] === "]") inClass = false;
      if (text[i] === "\\" && i + 1 < text.length) out.blank(text[i++]!);
      out.blank(text[i++]!);
    }
    if (text[i] === "/") out.keep(text[i++]!);
  } else {
    if (c === "{") top.depth++;
    if (c === "}" && top.depth === 0 && stack.length > 1) stack.pop();
    else if (c === "}") top.depth--;
    out.keep(c);
    i++;
  }
  return i;
}

export function scanSource(text: string): Scanned {
  const out = new ScanOutput();
  const stack: Frame[] = [{ kind: "code", depth: 0 }];
  let i = 0;
  while (i < text.length) {
    const top = stack[stack.length - 1]!;
    i = top.kind === "template" ? scanTemplateText(text, i, out, stack) : scanCode(text, i, out, stack);
  }
  return { code: out.code.join(""), bare: out.bare.join("") };
}

export function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

export const notPartOfName = String.raw`(?<![\w$.])`;
const clause = String.raw`(?:[\w$]+\s*,?\s*)?(?:\*(?:\s+as\s+[\w$]+)?|\{[^{}]*\})?`;
const staticImport = new RegExp(
  String.raw`${notPartOfName}(import|export)(\s+type)?\s+(?:(${clause})\s*from\s*)?(["'])([^"'\n]*)\4`,
  "g",
);

/** The names of `a, type b as c` (a brace list without its braces). */
function braceNames(list: string): NameRef[] {
  return list
    .split(",")
    .map((item) => item.trim().replace(/^type\s+/, ""))
    .filter((item) => item !== "")
    .map((item) => {
      const [name, as] = item.split(/\s+as\s+/);
      return { name: name!, as: as ?? name! };
    });
}

/** What one import or export clause takes: `X, { a as b }`, `* as ns`, `*`, `{ a }`. */
function clauseNames(statement: string, text: string): { star: boolean; namespace?: string; names: NameRef[] } {
  const braces = /\{([^{}]*)\}/.exec(text);
  const names = braces ? braceNames(braces[1]!) : [];
  const lead = /^\s*([\w$]+)/.exec(text);
  if (statement === "import" && lead) names.unshift({ name: "default", as: lead[1]! });
  const star = /^\s*(?:[\w$]+\s*,\s*)?\*/.test(text);
  const namespace = /\*\s+as\s+([\w$]+)/.exec(text)?.[1];
  return namespace === undefined ? { star, names } : { star, namespace, names };
}

/** Every `import … from "x"`, `import type …`, `export … from "x"` and `import "x"` of a file. */
export function parseImports(scanned: Scanned): ImportRef[] {
  const refs: ImportRef[] = [];
  for (const match of scanned.code.matchAll(staticImport)) {
    const [, statement, typeWord, clauseText, , specifier] = match;
    refs.push({
      line: lineAt(scanned.code, match.index),
      specifier: specifier!,
      typeOnly: typeWord !== undefined,
      reexport: statement === "export",
      ...clauseNames(statement!, clauseText ?? ""),
    });
  }
  return refs;
}

const declaredExport = new RegExp(
  String.raw`${notPartOfName}export\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\s*\*?|const\s+enum|const|let|var|class|interface|type|enum|namespace)\s+([\w$]+)`,
  "g",
);
const defaultExport = new RegExp(String.raw`${notPartOfName}export\s+default(?![\w$])`, "g");
const localExportList = new RegExp(
  String.raw`${notPartOfName}export(?:\s+type)?\s*\{([^{}]*)\}(?!\s*from(?![\w$]))`,
  "g",
);

/** The names a file exports itself: declarations, `export default` and `export { a as b }` lists of
 * its own bindings. Re-exports (`export … from`) are in parseImports, with `reexport` set. */
export function parseExports(scanned: Scanned): ExportDecl[] {
  const at = (index: number) => lineAt(scanned.bare, index);
  const found: ExportDecl[] = [];
  for (const match of scanned.bare.matchAll(declaredExport)) found.push({ name: match[1]!, line: at(match.index) });
  for (const match of scanned.bare.matchAll(defaultExport)) found.push({ name: "default", line: at(match.index) });
  for (const match of scanned.bare.matchAll(localExportList)) {
    for (const ref of braceNames(match[1]!)) found.push({ name: ref.as, line: at(match.index) });
  }
  return found.sort((a, b) => a.line - b.line);
}

/** The source file a relative specifier names (`./x.js` → `src/…/x.ts`), or undefined for a package,
 * a built-in or a file that is not among `paths`. */
export function resolveSource(from: string, specifier: string, paths: ReadonlySet<string>): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const target = posix.normalize(posix.join(posix.dirname(from), specifier));
  const candidates = [target.replace(/\.js$/, ".ts").replace(/\.mjs$/, ".mts"), `${target}.ts`, `${target}/index.ts`];
  return candidates.find((candidate) => paths.has(candidate));
}

export const repo = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Every .ts file under `folder`, repository-relative, sorted. */
export function readSources(folder: string): SourceFile[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts|cts|tsx)$/.test(entry.name))
    .map((entry) => {
      const full = join(entry.parentPath, entry.name);
      return { path: relative(repo, full).split(sep).join("/"), text: readFileSync(full, "utf8") };
    })
    .sort((a, b) => (a.path < b.path ? -1 : 1));
}
