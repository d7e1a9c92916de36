/** A value made at its first use rather than at import. The schema checkers are made this way:
 * compiling all four took about 10 ms of every Pi start, before any mail needed one. */
export function later<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}
