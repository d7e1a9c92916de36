// The one clock of the combined world. Both simulators move it: the mail one in bulk (advance,
// then jump), the bus one timer by timer with Date kept on the wall time. Here every advance steps
// from timer to timer with the wall clock set first, whoever moves it, so a heartbeat's mtime is the
// time its timer fired at, and a jump moves Date with it; the mail world's monotonic time follows.
import type { VirtualClock } from "../../../src/adapters/memory/virtual-clock.js";

export interface SharedClock extends VirtualClock {
  /** Time advanced so far (never moved by a jump): the mail world's monoMs. */
  monoMs(): number;
}

export function sharedClock(base: VirtualClock, onWall: (ms: number) => void): SharedClock {
  let mono = 0;
  return {
    ...base,
    advance(ms: number): number {
      mono += ms;
      const target = base.now() + ms;
      let fired = 0;
      for (let next = base.nextTimerAt(); next !== undefined && next <= target; next = base.nextTimerAt()) {
        onWall(Math.max(next, base.now()));
        fired += base.advance(Math.max(0, next - base.now()));
      }
      onWall(target);
      fired += base.advance(Math.max(0, target - base.now()));
      return fired;
    },
    jump(ms: number): void {
      base.jump(ms);
      onWall(base.now());
    },
    monoMs: () => mono,
  };
}
