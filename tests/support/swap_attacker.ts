/**
 * Test helper program: keeps swapping `<parent>/a` between the real folder and
 * a symlink to an outside folder until killed or until `ms` pass, dwelling a
 * random few microseconds in each state so that no reader can phase-lock with
 * it. Prints "ready" once it has started.
 *
 * @module
 */

import * as fs from "node:fs";
import { join } from "node:path";

const [parent, outside, ms] = Deno.args;
const target = join(parent, "a");
const hidden = join(parent, "a.real");
await Deno.stdout.write(new TextEncoder().encode("ready\n"));
const end = Date.now() + Number(ms);
function dwell(): void {
  const until = performance.now() + Math.random() * 0.05;
  while (performance.now() < until) {
    // spin: sleeping would make the swaps far rarer than the reads
  }
}
while (Date.now() < end) {
  fs.renameSync(target, hidden);
  fs.symlinkSync(outside, target);
  dwell();
  fs.unlinkSync(target);
  fs.renameSync(hidden, target);
  dwell();
}
