// Strict JSONL framing for Pi's RPC stdout: records end at LF only (U+2028/U+2029 stay inside
// JSON strings, which is why this is not `readline`); a CR before the LF is dropped.

export interface JsonlSplitter {
  /** Feed decoded text; calls `onLine` for each complete line. */
  push(chunk: string): void;
  /** At end of stream: hands over a trailing line that had no LF, if any. */
  flush(): void;
}

const lineCharsMax = 64 * 1024 * 1024;

export function createJsonlSplitter(onLine: (line: string) => void): JsonlSplitter {
  let buffer = "";
  const emit = (line: string) => onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
  return {
    push(chunk) {
      buffer += chunk;
      let lf = buffer.indexOf("\n");
      while (lf >= 0) {
        emit(buffer.slice(0, lf));
        buffer = buffer.slice(lf + 1);
        lf = buffer.indexOf("\n");
      }
      // A runaway line is handed over cut (and will fail to parse) rather than growing without bound.
      if (buffer.length > lineCharsMax) {
        emit(buffer);
        buffer = "";
      }
    },
    flush() {
      if (buffer !== "") emit(buffer);
      buffer = "";
    },
  };
}
