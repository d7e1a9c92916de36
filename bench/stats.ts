// Small statistics for the benchmark: medians and percentiles over repeated runs, never one timing.

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const median = (values: readonly number[]): number => percentile(values, 50);

/** Microseconds since an arbitrary origin, from the monotonic high-resolution clock. */
export function nowUs(): number {
  return Number(process.hrtime.bigint()) / 1000;
}

export function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
