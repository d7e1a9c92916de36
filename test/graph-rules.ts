// Two rules over the import graph of src/, beside the per-file rules of dependency-rule.ts:
// - no import cycle, type imports included: a cycle of types is still two files that cannot be read
//   one before the other;
// - in an engine folder (src/domain/<context>/engine), parts reach each other only through their
//   factories' arguments: only the engine's composition root (`*-engine.ts`) calls a factory
//   (`create…`) of another file of the folder, and the context file imports from its folder only
//   files that import nothing else from it (the session cell, the notices), never a part.
import { posix } from "node:path";
import { parseImports, resolveSource, type SourceFile, scanSource } from "./source-text.js";

interface GraphViolation {
  rule: "cycles" | "parts";
  file: string;
  line?: number;
  detail: string;
}

/** Each file's relative imports, resolved to files of `files`. */
function edgesOf(files: readonly SourceFile[]): Map<string, { to: string; line: number; names: string[] }[]> {
  const paths = new Set(files.map((file) => file.path));
  const edges = new Map<string, { to: string; line: number; names: string[] }[]>();
  for (const file of files) {
    const out = parseImports(scanSource(file.text)).flatMap((ref) => {
      const to = resolveSource(file.path, ref.specifier, paths);
      if (to === undefined) return [];
      // A re-export (an index) passes a factory on; it calls nothing.
      const calls = ref.typeOnly || ref.reexport ? [] : ref.names.map((n) => n.name);
      return [{ to, line: ref.line, names: calls }];
    });
    edges.set(file.path, out);
  }
  return edges;
}

/** The strongly connected components with more than one file, or a file importing itself
 * (Tarjan's algorithm, iterative so a deep chain cannot overflow the stack). */
function cyclesOf(edges: ReadonlyMap<string, readonly { to: string }[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  for (const start of [...edges.keys()].sort()) {
    if (index.has(start)) continue;
    const work: { node: string; at: number }[] = [{ node: start, at: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const out = edges.get(frame.node) ?? [];
      if (frame.at < out.length) {
        const to = out[frame.at++]!.to;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, at: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      for (;;) {
        const member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
        if (member === frame.node) break;
      }
      const selfLoop = (edges.get(frame.node) ?? []).some((edge) => edge.to === frame.node);
      if (component.length > 1 || selfLoop) components.push(component.sort());
    }
  }
  return components;
}

export function importCycles(files: readonly SourceFile[]): GraphViolation[] {
  return cyclesOf(edgesOf(files)).map((component) => ({
    rule: "cycles",
    file: component[0]!,
    detail: `is in an import cycle of ${component.length} files: ${component.join(", ")}`,
  }));
}

const engineFolder = /^src\/domain\/[a-z]+\/engine\/[^/]+\.ts$/;

export function partCalls(files: readonly SourceFile[]): GraphViolation[] {
  const edges = edgesOf(files);
  const violations: GraphViolation[] = [];
  const sameFolder = (from: string, to: string) => posix.dirname(from) === posix.dirname(to);
  for (const [file, out] of edges) {
    if (!engineFolder.test(file) || file.endsWith("-engine.ts")) continue;
    for (const edge of out) {
      if (!sameFolder(file, edge.to)) continue;
      for (const name of edge.names.filter((n) => /^create[A-Z]/.test(n))) {
        violations.push({
          rule: "parts",
          file,
          line: edge.line,
          detail: `calls ${name}: only the composition root makes parts`,
        });
      }
      if (!file.endsWith("/context.ts")) continue;
      const leaf = (edges.get(edge.to) ?? []).every((e) => !sameFolder(edge.to, e.to));
      if (!leaf)
        violations.push({ rule: "parts", file, line: edge.line, detail: `names the part ${edge.to} in the context` });
    }
  }
  return violations;
}
