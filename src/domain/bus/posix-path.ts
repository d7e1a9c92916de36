// Posix path arithmetic on strings (no node:path in the domain). Lexical only: links are the
// caller's realpath's business.

/** The segments of a path, `.` and empty ones dropped, `..` kept as written. */
function segmentsOf(path: string): string[] {
  return path.split("/").filter((segment) => segment !== "" && segment !== ".");
}

/** `base` (absolute, normalized) followed by `rest`, `..` popping a segment (never above `/`). */
export function joinLexical(base: string, rest: readonly string[]): string {
  const out = segmentsOf(base);
  for (const segment of rest) {
    if (segment === "..") out.pop();
    else if (segment !== "." && segment !== "") out.push(segment);
  }
  return `/${out.join("/")}`;
}

/** An absolute path with `.`, `..` and repeated slashes resolved lexically. */
export function normalizeAbsolute(path: string): string {
  return joinLexical("/", path.split("/"));
}

/** Whether `path` is `root` or below it (both absolute and normalized). */
export function isWithin(root: string, path: string): boolean {
  if (root === "/") return path.startsWith("/");
  return path === root || path.startsWith(`${root}/`);
}

/** `path` relative to `root`, for a `path` strictly below it. */
export function relativeBelow(root: string, path: string): string {
  return root === "/" ? path.slice(1) : path.slice(root.length + 1);
}
