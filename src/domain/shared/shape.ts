// The few JSON shapes the mail files use, checked by hand. A schema library did this before; it
// was ~170 KB of the extension bundle and ~10 ms of every Pi start, for four flat objects.
import { err, ok, type Result } from "neverthrow";

/** Undefined when the value fits, else what is wrong with it, starting with its JSON pointer. */
export type Shape = (value: unknown, path: string) => string | undefined;

interface TextRules {
  minLength?: number;
  maxLength?: number;
  pattern?: RegExp;
}

export function text(rules: TextRules = {}): Shape {
  return (value, path) => {
    if (typeof value !== "string") return `${path} must be a string`;
    if (rules.minLength !== undefined && value.length < rules.minLength) {
      return `${path} must be at least ${rules.minLength} characters`;
    }
    if (rules.maxLength !== undefined && value.length > rules.maxLength) {
      return `${path} must be at most ${rules.maxLength} characters`;
    }
    if (rules.pattern !== undefined && !rules.pattern.test(value)) return `${path} must match ${rules.pattern.source}`;
    return undefined;
  };
}

export function integer(minimum: number): Shape {
  return (value, path) =>
    typeof value === "number" && Number.isInteger(value) && value >= minimum
      ? undefined
      : `${path} must be an integer of at least ${minimum}`;
}

export function oneOf(values: readonly unknown[]): Shape {
  return (value, path) =>
    values.includes(value) ? undefined : `${path} must be one of ${values.map((v) => JSON.stringify(v)).join(", ")}`;
}

export function either(...shapes: Shape[]): Shape {
  return (value, path) => {
    const problems = shapes.map((shape) => shape(value, path));
    return problems.includes(undefined) ? undefined : problems.join(", or ");
  };
}

export const isNull: Shape = (value, path) => (value === null ? undefined : `${path} must be null`);

export function list(item: Shape, maxItems = Number.POSITIVE_INFINITY): Shape {
  return (value, path) => {
    if (!Array.isArray(value)) return `${path} must be an array`;
    if (value.length > maxItems) return `${path} must have at most ${maxItems} items`;
    for (let i = 0; i < value.length; i++) {
      const problem = item(value[i], `${path}/${i}`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
}

/** An object with these fields (others pass); a field in `optional` may be absent. */
export function record(fields: Readonly<Record<string, Shape>>, optional: readonly string[] = []): Shape {
  const entries = Object.entries(fields);
  return (value, path) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return `${path || "/"} must be an object`;
    for (const [key, shape] of entries) {
      const field = (value as Record<string, unknown>)[key];
      if (field === undefined && Object.hasOwn(value, key) === false) {
        if (optional.includes(key)) continue;
        return `${path}/${key} is required`;
      }
      const problem = shape(field, `${path}/${key}`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
}

/** Why a text is not the JSON a shape wants: not JSON at all, or JSON of another shape. */
type ShapedError = { kind: "not-json" } | { kind: "wrong-shape"; reason: string };

/** What `text` holds as JSON when it fits `shape`, or why it does not. */
export function decodeShaped<T>(text: string, shape: Shape): Result<T, ShapedError> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return err({ kind: "not-json" });
  }
  const problem = shape(raw, "");
  return problem === undefined ? ok(raw as T) : err({ kind: "wrong-shape", reason: problem });
}

/** What `text` holds as JSON when it fits `shape`, else undefined: for files this package writes
 * for itself, where anything that does not fit is simply not one. */
export function parseShaped<T>(text: string, shape: Shape): T | undefined {
  return decodeShaped<T>(text, shape).unwrapOr(undefined);
}
