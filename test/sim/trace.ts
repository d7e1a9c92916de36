// SIM_TRACE=<id prefix> prints what happens to one envelope while replaying a seed.
const wanted = process.env.SIM_TRACE;

export function trace(id: string, what: () => string): void {
  if (wanted !== undefined && wanted !== "" && id.startsWith(wanted))
    console.log(`[trace ${id.slice(0, 8)}] ${what()}`);
}
